import { useId, useState, type FormEvent, type ReactElement } from 'react';
import type { Store } from 'redux';
import { client } from '../../app/api';
import { Dialog, ErrorMessage, useAction } from '../../app/ui';
import type { MapDraws } from '../tile-choice/map-draws';
import { COUNT_COLUMN, SPATIAL_TOOLS, toolQuery, type SpatialTool, type ToolSource } from './sql';
import { colorByField, mapDatasets } from './choropleth';

/** A labelled control: the label names the control alone (a wrapping label would add its options' text). */
function Field({ label, children }: { label: string; children: (id: string) => ReactElement }) {
  const id = useId();
  return <div className="field"><label htmlFor={id}>{label}</label>{children(id)}</div>;
}

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

async function sourceOf(id: string): Promise<ToolSource> {
  const d = await client.datasets.get(id);
  return { id, name: d.name, columns: d.metadata.columns.map((c) => c.name), detected: d.metadata.detected };
}

const defaultName = (tool: SpatialTool, a: string, b: string | undefined, metres: number) =>
  tool === 'count' ? `${a} counted in ${b}` : tool === 'join' ? `${a} joined to ${b}` : tool === 'buffer' ? `${a} buffered ${metres} m` : `${a} with nearest ${b}`;

/**
 * The map builder's spatial tools: each runs a spatial SQL query over the layers' datasets (ST_Contains, ST_Intersects,
 * ST_Buffer, ST_DWithin in the SQL sandbox), keeps the result as a new catalog dataset and adds it as a layer;
 * "Count points in polygons" colours the polygons by their count (a choropleth). The result is drawn as the map
 * draws any dataset (`draws`): from its own tiles past the installation's threshold.
 */
export function SpatialToolsDialog({ store, draws, onClose }: { store: Store; draws: MapDraws; onClose: () => void }) {
  const layers = mapDatasets(store);
  const [tool, setTool] = useState<SpatialTool>('count');
  const [a, setA] = useState(layers[0]?.id ?? '');
  const [b, setB] = useState(layers[1]?.id ?? layers[0]?.id ?? '');
  const [metres, setMetres] = useState(1000);
  const [name, setName] = useState<string | null>(null);
  const action = useAction();
  const spec = SPATIAL_TOOLS[tool];
  const label = (id: string) => layers.find((l) => l.id === id)?.label;
  const shownName = name ?? defaultName(tool, label(a) ?? '', spec.other ? label(b) : undefined, metres);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const [first, second] = await Promise.all([sourceOf(a), spec.other ? sourceOf(b) : null]);
      const made = await client.pipelines.saveAsDataset(toolQuery(tool, first, second, spec.needsMetres ? metres : undefined), shownName);
      await draws.add(store, [made.id]);
      // kepler settles the new layer over a few frames (its fields formatted, one layer kept): colour it once it has.
      for (let tries = 0; tool === 'count' && tries < 30 && !colorByField(store, made.id, COUNT_COLUMN); tries++) await nextFrame();
      onClose();
    });
  };

  return (
    <Dialog title="Spatial tools" onClose={onClose}>
      <form className="form" onSubmit={submit}>
        {layers.length === 0 && <p className="dialog-text">Add a layer first: the tools make a new dataset from the layers' datasets.</p>}
        <Field label="Tool">{(id) => (
          <select id={id} value={tool} onChange={(e) => setTool(e.target.value as SpatialTool)}>
            {Object.entries(SPATIAL_TOOLS).map(([key, t]) => <option key={key} value={key}>{t.label}</option>)}
          </select>
        )}</Field>
        <Field label={tool === 'count' ? 'Points' : 'Layer'}>{(id) => (
          <select id={id} value={a} onChange={(e) => setA(e.target.value)}>
            {layers.map((l) => <option key={l.id} value={l.id}>{l.label}</option>)}
          </select>
        )}</Field>
        {spec.other && (
          <Field label={spec.other}>{(id) => (
            <select id={id} value={b} onChange={(e) => setB(e.target.value)}>
              {layers.map((l) => <option key={l.id} value={l.id}>{l.label}</option>)}
            </select>
          )}</Field>
        )}
        {spec.needsMetres && (
          <Field label={tool === 'buffer' ? 'Radius (metres)' : 'Within (metres)'}>{(id) => (
            <input id={id} type="number" min={1} step="any" value={metres} onChange={(e) => setMetres(Number(e.target.value))} required />
          )}</Field>
        )}
        <Field label="New dataset">{(id) => <input id={id} value={shownName} onChange={(e) => setName(e.target.value)} maxLength={500} required />}</Field>
        <ErrorMessage message={action.error} />
        <div className="dialog-actions">
          <button type="submit" className="button button-primary" disabled={action.pending || layers.length === 0}>{action.pending ? 'Making the dataset…' : 'Add layer'}</button>
        </div>
      </form>
    </Dialog>
  );
}
