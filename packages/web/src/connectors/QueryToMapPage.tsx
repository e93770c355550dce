import { useNavigate } from 'react-router-dom';
import { CONNECTION_LABELS } from '@studio/schema';
import { client } from '../app/api';
import { ErrorMessage } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { SqlWorkspace } from './SqlWorkspace';
import './connectors.css';

/**
 * /new?connectorUuid={id}: a new map that starts from a query on the connection's warehouse. The result is
 * saved as a dataset (a Parquet snapshot) and the builder opens on it, as "Create map" does for a dataset.
 */
export default function QueryToMapPage({ connectionId }: { connectionId: string }) {
  const navigate = useNavigate();
  const connection = useLoad(() => client.connections.get(connectionId), [connectionId]);
  const c = connection.data;
  if (connection.error) return <section className="page"><ErrorMessage message={connection.error} onRetry={connection.reload} /></section>;
  if (!c) return <section className="page"><p role="status">Loading the connection…</p></section>;
  if (!c.isDatabase) return <section className="page"><ErrorMessage message={`${CONNECTION_LABELS[c.connectionType]} is a storage connection: open it from its connector page and import a file as a dataset`} /></section>;
  return (
    <section className="page connector-page">
      <header className="page-header"><h1>{`New map from ${c.name}`}</h1></header>
      <p className="muted">Write the query whose rows the map shows (latitude and longitude columns, WKT or GeoJSON, or H3 cells), run it, then open it on the map.</p>
      <SqlWorkspace connectionId={c.id} saveLabel="Open on a new map" onDataset={(d) => navigate(`/new?datasetUuid=${d.id}`, { replace: true })} />
    </section>
  );
}
