import { lazy, Suspense } from 'react';
import type { Dataset, VectorTileInfo } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { formatBytes, formatCount } from './format';

const TilesPreview = lazy(() => import('./TilesPreview'));

/**
 * A table dataset's own vector tiles (#50), once "Build tiles" has cut them: what they hold and the tiles drawn as
 * a layer (TilesPreview). Tiles of data since replaced are not served: the server's answer says to build them again.
 */
export function DatasetTiles({ d, info }: { d: Dataset; info: VectorTileInfo }) {
  // A new cut is a new archive (another tile URL): the links are asked for again when it lands.
  const links = useLoad(() => client.datasets.tileLinks(d.id), [d.id, info.archiveKey]);
  return (
    <section className="card dataset-section" aria-labelledby="tiles-title">
      <h2 id="tiles-title">Vector tiles</h2>
      {info.cutMaxZoom === undefined ? (
        <p aria-label="Tiles built">
          Built: zooms {info.minZoom}–{info.maxZoom}, {formatCount(info.featureCount)} features in {formatCount(info.tileCount)} tiles ({formatBytes(info.byteSize)})
          {info.cappedTiles > 0 ? `; ${formatCount(info.cappedTiles)} tiles held more features than a tile keeps` : ''}.
        </p>
      ) : (
        <p aria-label="Tiles built">
          Low zooms first: zooms {info.minZoom}–{info.cutMaxZoom} are served (maps enlarge them) while the rest, to zoom {info.maxZoom}, are cut.
        </p>
      )}
      {links.error && <p className="notice-pending" role="status">{links.error}</p>}
      {links.data && (
        <Suspense fallback={<p className="muted">Loading the map…</p>}>
          <TilesPreview info={info} links={links.data} label={`${d.name}'s tiles`} />
        </Suspense>
      )}
    </section>
  );
}
