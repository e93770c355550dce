import { useRef, useState, type FormEvent } from 'react';
import type { Store } from 'redux';
import { downloadFileBase } from '@studio/schema';
import { Dialog, ErrorMessage, TextField, useAction } from '../../app/ui';
import { saveBlob } from '../../app/save-blob';
import { EXPORT_SIZES, MAX_EXPORT, checkExportSize, renderMapImage } from './render';
import { toBlob } from './decorate';
import { jpegToPdf } from './pdf';

type Format = 'png' | 'pdf';

/**
 * "Export image" from the builder and the published view: the map as PNG or PDF at a chosen size, with its
 * title, the legend of the visible layers, a scale bar and the basemap's attribution, drawn in this browser
 * from the data this reader already has (a published view exports only what it shows).
 */
export function ExportImageDialog({ store, mapName, onClose }: { store: Store; mapName: string; onClose: () => void }) {
  const [size, setSize] = useState<{ width: number; height: number }>({ width: 1920, height: 1080 });
  const [title, setTitle] = useState(mapName);
  const [legend, setLegend] = useState(true);
  const [format, setFormat] = useState<Format>('png');
  const action = useAction();
  const cancel = useRef<AbortController | null>(null);
  const invalid = checkExportSize(size.width, size.height);
  const preset = EXPORT_SIZES.find((s) => s.width === size.width && s.height === size.height)?.label ?? 'custom';

  const run = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      cancel.current = new AbortController();
      try {
        const canvas = await renderMapImage(store, { ...size, legend, title, signal: cancel.current.signal });
        const name = downloadFileBase(title.trim() || mapName);
        if (format === 'png') saveBlob(await toBlob(canvas, 'image/png'), `${name}.png`);
        else saveBlob(jpegToPdf(new Uint8Array(await (await toBlob(canvas, 'image/jpeg', 0.92)).arrayBuffer()), size.width, size.height), `${name}.pdf`);
        onClose();
      } catch (err) {
        if (err instanceof DOMException && err.name === 'AbortError') return;
        throw err;
      } finally {
        cancel.current = null;
      }
    });
  };

  return (
    <Dialog title="Export image" onClose={() => (cancel.current?.abort(), onClose())}>
      <form className="form export-image-form" onSubmit={run}>
        <label htmlFor="export-size">Size</label>
        <select
          id="export-size"
          value={preset}
          onChange={(e) => {
            const s = EXPORT_SIZES.find((p) => p.label === e.target.value);
            if (s) setSize({ width: s.width, height: s.height });
          }}
        >
          {EXPORT_SIZES.map((s) => (
            <option key={s.label}>{s.label}</option>
          ))}
          <option value="custom">Custom</option>
        </select>
        <div className="embed-size">
          <TextField label="Width (pixels)" type="number" min={200} max={MAX_EXPORT.width} value={size.width} onChange={(e) => setSize({ ...size, width: Number(e.target.value) })} />
          <TextField label="Height (pixels)" type="number" min={200} max={MAX_EXPORT.height} value={size.height} onChange={(e) => setSize({ ...size, height: Number(e.target.value) })} />
        </div>
        <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} />
        <label className="checkbox">
          <input type="checkbox" checked={legend} onChange={(e) => setLegend(e.target.checked)} /> Legend of the visible layers
        </label>
        <fieldset className="export-format">
          <legend>Format</legend>
          {(['png', 'pdf'] as const).map((f) => (
            <label key={f} className="checkbox">
              <input type="radio" name="export-format" value={f} checked={format === f} onChange={() => setFormat(f)} /> {f.toUpperCase()}
            </label>
          ))}
        </fieldset>
        <ErrorMessage message={invalid ?? action.error} />
        <footer className="dialog-actions">
          <button type="submit" className="button button-primary" disabled={action.pending || Boolean(invalid)}>
            {action.pending ? 'Drawing…' : 'Export'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
