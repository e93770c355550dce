import { Link } from 'react-router-dom';

/** What an address the app has no screen for shows; a screen whose record is missing names it (`Map not found`). */
export function NotFoundPage({ title = 'Page not found', lead = 'There is nothing at this address.' }: { title?: string; lead?: string }) {
  return (
    <section className="page message-page">
      <p className="eyebrow">404</p>
      <h1>{title}</h1>
      <p className="lead">{lead}</p>
      <Link className="button" to="/workspace/maps">
        Back to the workspace
      </Link>
    </section>
  );
}
