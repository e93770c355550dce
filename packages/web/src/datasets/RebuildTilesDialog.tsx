import type { Dataset } from '@studio/schema';
import { client } from '../app/api';
import { Dialog, ErrorMessage, useAction } from '../app/ui';

/** Whether the page offers "Rebuild tiles": a tileset the user may edit, that knows how it was built, not building now. */
export const canRebuildTiles = (d: Dataset, mayEdit: boolean): boolean =>
  ((d.type === 'hex-tile' && Boolean(d.metadata.hexTile)) || (d.type === 'vector-tile' && Boolean(d.metadata.vectorTileBuild))) && mayEdit && d.status !== 'pending';

/** The same build again, into this dataset. */
const rebuild = (d: Dataset) =>
  d.type === 'hex-tile' ? client.datasets.buildHexTiles({ ...d.metadata.hexTile!, target: d.id }) : client.datasets.buildVectorTiles({ ...d.metadata.vectorTileBuild!, target: d.id });

/**
 * "Rebuild tiles" of a hex or vector tileset: the build it was made with (`metadata.hexTile`,
 * `metadata.vectorTileBuild`) runs again on its source as the source is now, into the same dataset (`target`);
 * maps showing it keep the current tiles until then.
 */
export function RebuildTilesDialog({ d, onClose, onStarted }: { d: Dataset; onClose: () => void; onStarted: () => void }) {
  const action = useAction();
  const start = () =>
    void action.run(async () => {
      await rebuild(d);
      onStarted();
    });
  return (
    <Dialog title="Rebuild tiles" onClose={onClose}>
      <p className="dialog-text">
        Build “{d.name}” again from its source dataset as it is now, with the same options. Maps and dashboards that show it keep
        the current tiles until the new ones are ready.
      </p>
      <ErrorMessage message={action.error} />
      <div className="dialog-actions">
        <button type="button" className="button button-quiet" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="button button-primary" disabled={action.pending} onClick={start}>
          {action.pending ? 'Starting…' : 'Rebuild'}
        </button>
      </div>
    </Dialog>
  );
}
