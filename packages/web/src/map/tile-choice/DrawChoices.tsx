import { createContext, useContext, useSyncExternalStore } from 'react';
import { isFinished } from '@studio/schema';
import { jobStatusText } from '../../jobs/jobText';
import type { MapDraws, LayerDraw } from './map-draws';
import './draw-choices.css';

/** The open map's draws, lent to kepler's layer panel (the studio's layer list, kepler/accessible-components.tsx). */
export const DrawChoicesContext = createContext<MapDraws | null>(null);

function useDraws(): [MapDraws | null, Record<string, LayerDraw>] {
  const draws = useContext(DrawChoicesContext);
  const entries = useSyncExternalStore(draws?.subscribe ?? noSubscribe, draws?.snapshot ?? noEntries);
  return [draws, entries];
}
const noSubscribe = () => () => undefined;
const EMPTY: Record<string, LayerDraw> = {};
const noEntries = () => EMPTY;

/** Under a layer of the panel: how its dataset is drawn and why (the threshold printed), and the other way. */
export function LayerDrawNote({ dataId }: { dataId: string }) {
  const [draws, entries] = useDraws();
  const entry = entries[dataId];
  if (!draws || !entry) return null;
  const other = entry.choice.draw === 'tiles' ? 'rows' : 'tiles';
  return (
    <div className="layer-draw-note" data-testid="layer-draw-note">
      <span>{entry.choice.text}</span>
      <button type="button" onClick={() => void draws.setDraw(dataId, other)}>
        {other === 'rows' ? 'Draw all rows' : 'Use tiles'}
      </button>
    </div>
  );
}

/**
 * At the top of the layer panel: the datasets not on the map yet because their tiles are being cut (the job's
 * progress), or could not be (why, and drawing all rows instead).
 */
export function PendingDraws() {
  const [draws, entries] = useDraws();
  if (!draws) return null;
  const waiting = Object.entries(entries).filter(([, e]) => e.error || (e.job && !isFinished(e.job.status)));
  if (!waiting.length) return null;
  return (
    <div className="pending-draws">
      {waiting.map(([id, e]) => (
        <div key={id} className="layer-draw-note" role="status" aria-label={`Tiles of ${e.name}`}>
          <strong>{e.name}</strong>
          <span>{e.choice.text}</span>
          {e.error ? (
            <>
              <span className="layer-draw-error">{e.error}</span>
              <button type="button" onClick={() => void draws.setDraw(id, 'rows')}>
                Draw all rows
              </button>
            </>
          ) : (
            e.job && (
              <>
                <span>{e.early ? 'Its low zooms are drawn; cutting the rest' : 'Cutting its tiles'}: {jobStatusText(e.job)}</span>
                <progress max={100} value={e.job.percent} aria-label={`Cutting the tiles of ${e.name}`} />
              </>
            )
          )}
        </div>
      ))}
    </div>
  );
}
