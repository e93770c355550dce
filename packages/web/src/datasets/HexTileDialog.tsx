import { useState, type FormEvent } from 'react';
import { TILE_INTERVALS, type Dataset, type TileInterval } from '@studio/schema';
import { client } from '../app/api';
import { Dialog, Field, TextField, useAction } from '../app/ui';

const NUMERIC = new Set(['INTEGER', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL']);
const TIMES = new Set(['DATE', 'TIMESTAMP']);
const INTERVAL_NAMES: Record<TileInterval, string> = { T: 'minute', H: 'hour', D: 'day', M: 'month', Y: 'year' };

/** An output field name the server accepts: letters, digits and underscores, not starting with a digit. */
export const fieldNameOf = (column: string): string => `sum_${column.replace(/[^A-Za-z0-9_]+/g, '_')}`.slice(0, 63);

/**
 * "Build hex tiles" of a ready table dataset: H3 cells from its latitude/longitude (or its H3 column) at a
 * range of resolutions, counted and optionally summed, optionally sliced by time. The server answers at once
 * with the new dataset pending and the job building it; `onStarted` opens that dataset.
 */
export function HexTileDialog({ d, onClose, onStarted }: { d: Dataset; onClose: () => void; onStarted: (datasetId: string) => void }) {
  const columns = d.metadata.columns;
  const detected = d.metadata.detected;
  const [name, setName] = useState(`${d.name} hex tiles`);
  const [location, setLocation] = useState<'latlng' | 'h3'>(detected.h3 && !detected.latitude ? 'h3' : 'latlng');
  const [lat, setLat] = useState(detected.latitude ?? columns[0]?.name ?? '');
  const [lng, setLng] = useState(detected.longitude ?? columns[1]?.name ?? '');
  const [h3, setH3] = useState(detected.h3 ?? '');
  const [finest, setFinest] = useState(8);
  const [sum, setSum] = useState('');
  const [time, setTime] = useState('');
  const [interval, setInterval] = useState<TileInterval>('D');
  const action = useAction();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const { item } = await client.datasets.buildHexTiles({
        name,
        source: d.id,
        ...(location === 'h3' ? { sourceHexColumn: h3 } : { sourceLatColumn: lat, sourceLngColumn: lng, finestResolution: finest }),
        ...(time ? { sourceTimeColumn: time, timeIntervals: [interval] } : {}),
        outputColumns: [{ targetColumn: 'count', aggMethod: 'count' }, ...(sum ? [{ sourceColumn: sum, targetColumn: fieldNameOf(sum), aggMethod: 'sum' as const }] : [])],
      });
      onStarted(item.id);
    });
  };

  const select = (value: string, set: (v: string) => void, options: string[], optional?: string) => (
    <select value={value} onChange={(e) => set(e.target.value)}>
      {optional !== undefined && <option value="">{optional}</option>}
      {options.map((c) => (
        <option key={c} value={c}>
          {c}
        </option>
      ))}
    </select>
  );
  const names = columns.map((c) => c.name);
  return (
    <Dialog title="Build hex tiles" onClose={onClose}>
      <form onSubmit={submit} className="form">
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} required />
        {detected.h3 && (
          <Field label="Cells from">
            <select value={location} onChange={(e) => setLocation(e.target.value as 'latlng' | 'h3')}>
              <option value="latlng">Latitude and longitude</option>
              <option value="h3">An H3 column</option>
            </select>
          </Field>
        )}
        {location === 'h3' ? (
          <Field label="H3 column">{select(h3, setH3, names)}</Field>
        ) : (
          <>
            <Field label="Latitude column">{select(lat, setLat, names)}</Field>
            <Field label="Longitude column">{select(lng, setLng, names)}</Field>
            <Field label="Finest resolution">
              <input type="number" min={4} max={15} value={finest} onChange={(e) => setFinest(Number(e.target.value))} />
            </Field>
          </>
        )}
        <Field label="Sum of">{select(sum, setSum, columns.filter((c) => NUMERIC.has(c.type)).map((c) => c.name), '(count only)')}</Field>
        <Field label="Time column">{select(time, setTime, columns.filter((c) => TIMES.has(c.type)).map((c) => c.name), '(no time slices)')}</Field>
        {time && (
          <Field label="Slice by">
            <select value={interval} onChange={(e) => setInterval(e.target.value as TileInterval)}>
              {TILE_INTERVALS.map((i) => (
                <option key={i} value={i}>
                  {INTERVAL_NAMES[i]}
                </option>
              ))}
            </select>
          </Field>
        )}
        <p className="muted small">The tiles are built in the background: the new dataset shows its progress, and the Jobs page lists it.</p>
        {action.error && (
          <p className="error" role="alert">
            {action.error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={action.pending || !name.trim()}>
            {action.pending ? 'Starting…' : 'Build'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
