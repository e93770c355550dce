import { useState, type FormEvent } from 'react';
import { VECTOR_TILE_MAX_ZOOM, can, type Dataset, type Job } from '@studio/schema';
import { client } from '../app/api';
import { Dialog, ErrorMessage, Field, useAction } from '../app/ui';

/** The zooms the API takes, 0 to VECTOR_TILE_MAX_ZOOM, as a select's options. */
const zoomOptions = Array.from({ length: VECTOR_TILE_MAX_ZOOM + 1 }, (_, z) => <option key={z} value={z}>{z}</option>);

/**
 * Whether the page offers "Build tiles" (#50): a ready table dataset with a location (a geometry, or latitude and
 * longitude) that the user may edit. Its tiles are its own (POST /v1/datasets/{id}/tiles), not a new dataset.
 */
export const canBuildTiles = (d: Dataset): boolean =>
  d.type === 'managed' && d.status === 'ready' && can(d.access, 'write') && Boolean(d.metadata.detected.geometry || (d.metadata.detected.latitude && d.metadata.detected.longitude));

/**
 * "Build tiles" of a table dataset: its vector tiles cut from its data as it is now, by a background job (the page
 * shows its progress and Cancel). The zooms are the API's: from `minZoom` to `maxZoom`, or a highest zoom the
 * server chooses from the data's density when left automatic. The dataset stays ready while they are cut.
 */
export function BuildTilesDialog({ d, onClose, onStarted }: { d: Dataset; onClose: () => void; onStarted: (job: Job) => void }) {
  const built = d.metadata.vectorTileBuild?.datasetId === d.id ? d.metadata.vectorTileBuild : null;
  const [minZoom, setMinZoom] = useState(built?.minZoom ?? 0);
  const [maxZoom, setMaxZoom] = useState<number | null>(built?.maxZoom ?? null);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => onStarted(await client.datasets.buildTiles(d.id, { minZoom, ...(maxZoom === null ? {} : { maxZoom }) })));
  };
  const outOfOrder = maxZoom !== null && minZoom > maxZoom;
  return (
    <Dialog title="Build tiles" onClose={onClose}>
      <form onSubmit={submit} className="form">
        <p className="dialog-text">
          Cut vector tiles of “{d.name}” from its data as it is now, so maps draw it tile by tile instead of downloading all of it.
          {d.metadata.vectorTile ? ' They replace the tiles it has once they are cut.' : ''}
        </p>
        <Field label="Lowest zoom">
          <select value={minZoom} onChange={(e) => setMinZoom(Number(e.target.value))}>
            {zoomOptions}
          </select>
        </Field>
        <Field label="Highest zoom">
          <select value={maxZoom ?? ''} onChange={(e) => setMaxZoom(e.target.value === '' ? null : Number(e.target.value))}>
            <option value="">Automatic (from the data’s density)</option>
            {zoomOptions}
          </select>
        </Field>
        {outOfOrder && <p className="error small">The lowest zoom must not be above the highest.</p>}
        <p className="muted small">The tiles are cut in the background: this page shows the progress, and the Jobs page lists it. Maps past the highest zoom enlarge its tiles.</p>
        <ErrorMessage message={action.error} />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={action.pending || outOfOrder}>
            {action.pending ? 'Starting…' : 'Build'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
