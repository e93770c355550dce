import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useParams, useSearchParams } from 'react-router-dom';
import type { Publication } from '@studio/schema';
import { client } from '../app/api';
import { Brand, ErrorMessage, TextField, useAction } from '../app/ui';
import { errorMessage } from '../app/useLoad';
import { DashboardCanvas, type CanvasSource } from './DashboardCanvas';
import { widgetBatcher } from './widget-batch';
import { valuesFromSearch } from './state';
import './dashboard.css';

/** /public/dashboard/{id} and /public/report/{id}: a published dashboard, for anyone with the link (password when set). */
export function PublicDashboardPage({ kind }: { kind: 'insight' | 'report' }) {
  const { id = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const [pub, setPub] = useState<Publication | null>(null);
  const [grant, setGrant] = useState<string | undefined>(undefined);
  const [needsPassword, setNeedsPassword] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const unlock = useAction();

  useEffect(() => {
    client.publications.open(kind, id).then(setPub, (e: unknown) => {
      if ((e as { status?: number }).status === 401) setNeedsPassword(true);
      else setError(errorMessage(e));
    });
  }, [kind, id]);

  const source = useMemo<CanvasSource>(() => {
    // The page's widgets go as one request.
    const batched = widgetBatcher((body, onLine, signal) => client.publications.runWidgets(kind, id, body, onLine, grant, signal));
    return {
      run: (w, body, signal) => batched({ widgetId: w.id, ...body }, signal),
      choices: (p) => client.publications.parameterValues(kind, id, p.id, grant),
      csv: (w, body) => client.publications.widgetCsv(kind, id, w.id, body, grant, 'safe'),
      // Readers without an account see a map only through its own publication (with its own password, if any).
      mapFrame: (mapId) => client.maps.publishedMap(mapId, true).then(() => `/public/${mapId}?embed=1`, () => null),
    };
  }, [kind, id, grant]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void unlock.run(async () => {
      const r = await client.publications.unlock(kind, id, password);
      setGrant(r.grant?.token);
      setPub(r.item);
      setNeedsPassword(false);
    });
  };

  return (
    <main className="public-dashboard">
      <header className="public-header"><Brand /></header>
      {error && <ErrorMessage message={error} />}
      {needsPassword && !pub && (
        <form className="form card password-form" onSubmit={submit} aria-label="Password">
          <p>{`This ${kind === 'insight' ? 'dashboard' : 'report'} is protected by a password.`}</p>
          <TextField label="Password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} required />
          <ErrorMessage message={unlock.error} />
          <button type="submit" className="button button-primary" disabled={unlock.pending}>Open</button>
        </form>
      )}
      {pub && (
        <section className="page dashboard-page" aria-label="Dashboard">
          <h1>{pub.name}</h1>
          <DashboardCanvas
            state={pub.latestState}
            values={valuesFromSearch(search, pub.latestState.parameters)}
            onValues={(v) => setSearch(Object.fromEntries(Object.entries(v).filter(([, x]) => x !== '')), { replace: true })}
            source={source}
            editing={false}
          />
        </section>
      )}
      {!pub && !needsPassword && !error && <p role="status">Loading…</p>}
    </main>
  );
}
