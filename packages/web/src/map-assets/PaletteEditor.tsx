import { useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { Palette, can } from '@studio/schema';
import type { MapAsset } from '@studio/client';
import { client } from '../app/api';
import { ErrorMessage, Field, TextField, useAction } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { interpolateStops } from '../map/basemaps/palettes';
import { VISIONS, paletteHints, simulate, type PaletteType } from './colorblind';
import './map-assets.css';

const TYPES: { id: PaletteType; label: string; hint: string }[] = [
  { id: 'sequential', label: 'Sequential', hint: 'low to high values, one direction' },
  { id: 'diverging', label: 'Diverging', hint: 'two directions from a middle value' },
  { id: 'qualitative', label: 'Qualitative', hint: 'categories with no order' },
];
const MAX_COLORS = 20;
/** How many steps the preview spreads a sequential or diverging palette over (kepler's default class count is 6; more shows the blend). */
const RAMP_STEPS = 9;
const STARTER: Palette = { type: 'sequential', colors: ['#fde68a', '#f97316', '#7c2d12'] };

/** /workspace/colors/new and /workspace/colors/{id}: a color palette with its preview and colorblind hints. */
export function PaletteEditorPage() {
  const { id } = useParams();
  const loaded = useLoad(async () => {
    if (!id) return null;
    const asset = await client.mapAssets.get(id);
    if (asset.assetType !== 'color-palette') throw new Error('This asset is a map style, not a color palette');
    return asset;
  }, [id]);
  if (loaded.error) return <section className="page"><ErrorMessage message={loaded.error} onRetry={loaded.reload} /></section>;
  if (id && !loaded.data) return <section className="page"><p role="status">Loading the color palette…</p></section>;
  return <PaletteEditor key={loaded.data?.updatedAt ?? 'new'} saved={loaded.data ?? null} onSaved={loaded.reload} />;
}

/** The colors as the map will use them: a qualitative palette as it is, the others spread over a ramp. */
export function previewColors(p: Palette): string[] {
  if (p.type === 'qualitative') return p.colors;
  const at = interpolateStops(p.colors);
  return Array.from({ length: RAMP_STEPS }, (_, i) => at(i / (RAMP_STEPS - 1)).toLowerCase());
}

function PaletteEditor({ saved, onSaved }: { saved: MapAsset | null; onSaved: () => void }) {
  const navigate = useNavigate();
  const editable = !saved || can(saved.access, 'write');
  const [name, setName] = useState(saved?.name ?? '');
  const [description, setDescription] = useState(saved?.description ?? '');
  const [palette, setPalette] = useState<Palette>(saved?.palette ?? STARTER);
  const save = useAction();
  const checked = Palette.safeParse(palette);
  const hints = useMemo(() => (checked.success ? paletteHints(palette.colors, palette.type) : []), [checked.success, palette]);
  const setColor = (i: number, color: string) => setPalette((p) => ({ ...p, colors: p.colors.map((c, k) => (k === i ? color : c)) }));
  const move = (i: number, by: -1 | 1) =>
    setPalette((p) => {
      const colors = [...p.colors];
      [colors[i], colors[i + by]] = [colors[i + by]!, colors[i]!];
      return { ...p, colors };
    });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run(async () => {
      const body = { assetType: 'color-palette' as const, name, description, palette };
      const asset = saved ? await client.mapAssets.update(saved.id, body) : await client.mapAssets.create(body);
      if (saved) onSaved();
      else navigate(`/workspace/colors/${asset.id}`, { replace: true });
    });
  };

  return (
    <section className="page asset-editor">
      <header className="page-header">
        <h1>{saved ? saved.name : 'New color palette'}</h1>
        <Link to="/workspace/colors">All color palettes</Link>
      </header>
      <p className="muted">A color palette colors layers by value; maps pick it in a layer’s color range, under “Studio”.</p>
      <div className="asset-editor-columns">
        <form className="asset-form" onSubmit={submit} aria-label="Color palette">
          <fieldset disabled={!editable} className="plain-fieldset">
            <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={500} />
            <div className="field">
              <label htmlFor="palette-description">Description</label>
              <textarea id="palette-description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={10_000} />
            </div>
            <Field label="Type">
              <select value={palette.type} onChange={(e) => setPalette((p) => ({ ...p, type: e.target.value as PaletteType }))}>
                {TYPES.map((t) => <option key={t.id} value={t.id}>{`${t.label} — ${t.hint}`}</option>)}
              </select>
            </Field>
            <ol className="palette-colors" aria-label="Colors">
              {palette.colors.map((color, i) => (
                <li key={i}>
                  <input type="color" value={/^#[0-9a-f]{6}$/i.test(color) ? color : '#000000'} onChange={(e) => setColor(i, e.target.value)} aria-label={`Color ${i + 1}`} />
                  <input className="palette-hex" value={color} onChange={(e) => setColor(i, e.target.value.trim())} aria-label={`Color ${i + 1} hex`} maxLength={7} spellCheck={false} />
                  <button type="button" className="button button-small" onClick={() => move(i, -1)} disabled={i === 0} aria-label={`Move color ${i + 1} up`}>↑</button>
                  <button type="button" className="button button-small" onClick={() => move(i, 1)} disabled={i === palette.colors.length - 1} aria-label={`Move color ${i + 1} down`}>↓</button>
                  <button type="button" className="button button-small" onClick={() => setPalette((p) => ({ ...p, colors: p.colors.filter((_, k) => k !== i) }))} disabled={palette.colors.length <= 2} aria-label={`Remove color ${i + 1}`}>Remove</button>
                </li>
              ))}
            </ol>
            <div className="form-actions">
              <button type="button" className="button" disabled={palette.colors.length >= MAX_COLORS} onClick={() => setPalette((p) => ({ ...p, colors: [...p.colors, p.colors.at(-1) ?? '#888888'] }))}>Add color</button>
              <button type="button" className="button" onClick={() => setPalette((p) => ({ ...p, colors: [...p.colors].reverse() }))}>Reverse</button>
            </div>
          </fieldset>
          {!checked.success && <ErrorMessage message={checked.error.issues[0]!.message} />}
          {editable ? (
            <div className="form-actions">
              <button type="submit" className="button button-primary" disabled={save.pending || !checked.success}>
                {save.pending ? 'Saving…' : saved ? 'Save color palette' : 'Create color palette'}
              </button>
            </div>
          ) : (
            <p className="muted">You can view this palette; its owner and editors change it.</p>
          )}
          <ErrorMessage message={save.error} />
        </form>
        {checked.success && (
          <div className="palette-preview">
            <h2>Preview</h2>
            <Ramp label="As drawn" colors={previewColors(palette)} />
            {VISIONS.map((v) => <Ramp key={v.id} label={v.label} colors={previewColors(palette).map((c) => simulate(c, v.id))} />)}
            <div role="status" aria-label="Colorblind check">
              {hints.length === 0 ? (
                <p className="palette-safe">Colorblind-safe: the colors stay apart for protanopia, deuteranopia and tritanopia.</p>
              ) : (
                <ul className="palette-hints">{hints.map((h) => <li key={h.message} className="warning">{h.message}</li>)}</ul>
              )}
            </div>
          </div>
        )}
      </div>
    </section>
  );
}

function Ramp({ label, colors }: { label: string; colors: string[] }) {
  return (
    <figure className="palette-ramp">
      <figcaption>{label}</figcaption>
      <div role="img" aria-label={`${label}: ${colors.join(' ')}`}>
        {colors.map((c, i) => <span key={i} style={{ background: c }} />)}
      </div>
    </figure>
  );
}
