import { Link } from 'react-router-dom';

/** What an address the app has no screen for shows. */
export function NotFoundPage() {
  return (
    <section className="page message-page">
      <p className="eyebrow">404</p>
      <h1>Page not found</h1>
      <p className="lead">There is nothing at this address.</p>
      <Link className="button" to="/workspace/maps">
        Back to the workspace
      </Link>
    </section>
  );
}
