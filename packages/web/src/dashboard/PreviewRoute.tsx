import { useParams } from 'react-router-dom';
import { client } from '../app/api';
import { ErrorMessage } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { MapPreviewRoute } from '../map/routes';
import { DashboardPage } from './DashboardPage';

/** /preview/{id}: a dashboard or a map, read-only, as its readers will see it (no edit lock taken). */
export function PreviewRoute() {
  const { id = '' } = useParams();
  const kind = useLoad(
    () => client.records('dashboards').get(id).then(() => 'dashboard' as const, (e: unknown) => {
      if ((e as { status?: number }).status === 404) return 'map' as const;
      throw e;
    }),
    [id],
  );
  if (kind.error) return <section className="page"><ErrorMessage message={kind.error} /></section>;
  if (!kind.data) return <section className="page"><p role="status">Loading…</p></section>;
  return kind.data === 'dashboard' ? <DashboardPage preview /> : <MapPreviewRoute />;
}
