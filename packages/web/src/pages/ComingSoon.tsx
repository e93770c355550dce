import { Link, useParams, useSearchParams } from 'react-router-dom';

export interface ComingSoonProps {
  title: string;
  /** What the finished screen will do. */
  description: string;
  /** What will be on it. */
  features?: string[];
}

/** Placeholder of a screen another issue builds: says what will be here and what the link carried. */
export function ComingSoon({ title, description, features = [] }: ComingSoonProps) {
  const params = useParams();
  const [search] = useSearchParams();
  const carried = [
    ...Object.entries(params).filter(([k, v]) => k !== '*' && v),
    ...[...search.entries()],
  ];
  return (
    <section className="page coming-soon" aria-labelledby="coming-soon-title">
      <p className="eyebrow">Coming soon</p>
      <h1 id="coming-soon-title">{title}</h1>
      <p className="lead">{description}</p>
      {features.length > 0 && (
        <ul className="feature-list" aria-label="What will be here">
          {features.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      )}
      {carried.length > 0 && (
        <dl className="carried" aria-label="Link parameters">
          {carried.map(([k, v], i) => (
            <div key={`${k}-${i}`}>
              <dt>{k}</dt>
              <dd>
                <code>{v}</code>
              </dd>
            </div>
          ))}
        </dl>
      )}
      <Link className="button" to="/workspace/maps">
        Back to the workspace
      </Link>
    </section>
  );
}

export function NotFoundPage() {
  return (
    <section className="page coming-soon">
      <p className="eyebrow">404</p>
      <h1>Page not found</h1>
      <p className="lead">There is nothing at this address.</p>
      <Link className="button" to="/workspace/maps">
        Back to the workspace
      </Link>
    </section>
  );
}
