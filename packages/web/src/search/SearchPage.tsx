import { Link, useSearchParams } from 'react-router-dom';
import { client } from '../app/api';
import { RECORD_KINDS } from '../app/record-links';
import { ErrorMessage, formatDate } from '../app/ui';
import { useLoad } from '../app/useLoad';

/** How many of each kind the results page shows. */
const PER_KIND = 20;

/** /workspace/search?q=: the records of every kind whose name holds the words, grouped by kind, newest change first. */
export function SearchPage() {
  const [params] = useSearchParams();
  const q = (params.get('q') ?? '').trim();
  const results = useLoad(() => (q ? client.search(q, PER_KIND) : Promise.resolve([])), [q]);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title">{q ? `Search: ${q}` : 'Search'}</h1>
      </header>
      {!q && <p className="muted">Type a word of a name in the search box above (press / to get there).</p>}
      <ErrorMessage message={results.error} onRetry={results.reload} />
      {q && results.data && results.data.length === 0 && <p className="muted" role="status">{`Nothing you can open is named with “${q}”.`}</p>}
      {results.data?.map((group) => {
        const kind = RECORD_KINDS[group.kind];
        return (
          <section key={group.kind} className="search-group" aria-label={kind.plural}>
            <h2>{`${kind.plural} (${group.total})`}</h2>
            <ul>
              {group.items.map((r) => (
                <li key={r.id}>
                  <Link to={kind.href(r.id)}>{r.name}</Link>
                  <span className="muted">{` · ${r.owner.name} · ${formatDate(r.updatedAt)}`}</span>
                </li>
              ))}
            </ul>
            {group.total > group.items.length && <p className="muted">{`and ${group.total - group.items.length} more`}</p>}
          </section>
        );
      })}
    </section>
  );
}
