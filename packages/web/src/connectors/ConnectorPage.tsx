import { Suspense, lazy } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { CONNECTION_LABELS, can } from '@studio/schema';
import { client } from '../app/api';
import { ErrorMessage } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { ConnectorForm } from './ConnectorForm';
import { SchemaTree } from './SchemaTree';
import { ObjectBrowser } from './ObjectBrowser';
import './connectors.css';

// The SQL editor (CodeMirror) loads with the first connector page that shows it.
const SqlWorkspace = lazy(() => import('./SqlWorkspace').then((m) => ({ default: m.SqlWorkspace })));

/** /workspace/connectors/new: a new connection of a kind this studio has a driver for. */
export function NewConnectorPage() {
  const navigate = useNavigate();
  return (
    <section className="page connector-page">
      <header className="page-header"><h1>New connector</h1></header>
      <p className="muted">Connect a warehouse (the studio tests the connection, browses its schemas and runs queries there) or a storage bucket (its files import as datasets).</p>
      <ConnectorForm onSaved={(c) => navigate(`/workspace/connectors/${c.id}`, { replace: true })} />
    </section>
  );
}

/** /workspace/connectors/{id}: the connection's settings (editable by its editors) and its schema tree or its files. */
export function ConnectorPage() {
  const { id = '' } = useParams();
  const [search] = useSearchParams();
  const connection = useLoad(() => client.connections.get(id), [id]);
  const c = connection.data;
  if (connection.error) return <section className="page"><ErrorMessage message={connection.error} onRetry={connection.reload} /></section>;
  if (!c) return <section className="page"><p role="status">Loading the connection…</p></section>;
  return (
    <section className="page connector-page">
      <header className="page-header">
        <h1>{c.name}</h1>
        <span className="badge">{CONNECTION_LABELS[c.connectionType]}</span>
      </header>
      <div className="connector-columns">
        <div>
          <h2>Settings</h2>
          {can(c.access, 'write') ? (
            <ConnectorForm key={c.updatedAt} saved={c} onSaved={() => connection.reload()} />
          ) : (
            <dl className="connector-settings">
              {Object.entries(c.config).map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{String(v)}</dd></div>)}
            </dl>
          )}
        </div>
        {!c.isDatabase ? (
          <div>
            <h2>Files</h2>
            <ObjectBrowser connectionId={c.id} />
          </div>
        ) : (
          <div>
            <h2>Schemas</h2>
            <SchemaTree connectionId={c.id} />
          </div>
        )}
      </div>
      {c.isDatabase && (
        <>
          <h2>SQL</h2>
          <Suspense fallback={<p className="muted" role="status">Loading the SQL editor…</p>}>
            <SqlWorkspace connectionId={c.id} bookmarkId={search.get('bookmark') ?? undefined} />
          </Suspense>
        </>
      )}
    </section>
  );
}
