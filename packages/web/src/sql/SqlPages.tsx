import { Navigate, useParams, useSearchParams } from 'react-router-dom';
import { client } from '../app/api';
import { ErrorMessage } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { DatasetSqlWorkspace } from './DatasetSqlWorkspace';
import { tableNameOf } from './completion';

/** /workspace/queries/new (?dataset={id} from a dataset's page: the query starts over that dataset). */
export function NewQueryPage() {
  const [search] = useSearchParams();
  const datasetId = search.get('dataset');
  const dataset = useLoad(async () => (datasetId ? client.datasets.get(datasetId) : null), [datasetId]);
  if (dataset.error) return <section className="page"><ErrorMessage message={dataset.error} onRetry={dataset.reload} /></section>;
  if (dataset.data === undefined) return <section className="page"><p role="status">Loading…</p></section>;
  const initialText = dataset.data ? `SELECT * FROM ${tableNameOf(dataset.data)} LIMIT 100` : 'SELECT 1';
  return (
    <section className="page connector-page">
      <header className="page-header"><h1>New query</h1></header>
      <p className="muted">SQL over the datasets you can read, each named by its name as a table (letters, digits and _), with the spatial functions (ST_Contains, ST_DWithin, ST_Buffer, …: distances in metres).</p>
      <DatasetSqlWorkspace initialText={initialText} />
    </section>
  );
}

/** /workspace/queries/{id}: a saved query opens in its connection's SQL workspace, or, over datasets, in theirs. */
export function SavedQueryPage() {
  const { id = '' } = useParams();
  const bookmark = useLoad(() => client.bookmarks.get(id), [id]);
  if (bookmark.error) return <section className="page"><ErrorMessage message={bookmark.error} onRetry={bookmark.reload} /></section>;
  if (!bookmark.data) return <section className="page"><p role="status">Loading the saved query…</p></section>;
  if (bookmark.data.connectionId) return <Navigate to={`/workspace/connectors/${bookmark.data.connectionId}?bookmark=${id}`} replace />;
  return (
    <section className="page connector-page">
      <header className="page-header"><h1>{bookmark.data.name}</h1></header>
      <DatasetSqlWorkspace initialText={bookmark.data.query} />
    </section>
  );
}
