import { useMemo, useRef, useState, type FormEvent } from 'react';
import type { Store } from 'redux';
import { downloadFileBase } from '@studio/schema';
import { Dialog, ErrorMessage, TextField, useAction } from '../../app/ui';
import { saveBlob } from '../../app/save-blob';
import { VIDEO_FPS, VIDEO_LIMITS, VIDEO_SIZES, checkVideo, type Camera } from './video-plan';
import { currentCamera, renderMapVideo, timeFilters } from './video';
import { UTC, zonedFormatter } from '../time-zone/zones';

type SourceKind = 'time' | 'camera';

const cameraLabel = (c: Camera) => `${c.latitude.toFixed(3)}, ${c.longitude.toFixed(3)} · zoom ${c.zoom.toFixed(1)} · pitch ${Math.round(c.pitch)}° · bearing ${Math.round(c.bearing)}°`;

/**
 * "Export video" beside "Export image": the time filter's playback, or a camera path through keyframes taken
 * from the builder's view, as a WebM drawn frame by frame in this browser (progress shown, cancel at any frame).
 * From the builder and the published view; each frame's time reads in the viewer's zone (`zone`).
 */
export function ExportVideoDialog({ store, mapName, zone = UTC, onClose }: { store: Store; mapName: string; zone?: string; onClose: () => void }) {
  const filters = useMemo(() => timeFilters(store), [store]);
  const [kind, setKind] = useState<SourceKind>(filters.length ? 'time' : 'camera');
  const [filterIndex, setFilterIndex] = useState(filters[0]?.index ?? 0);
  const [keyframes, setKeyframes] = useState<Camera[]>([]);
  const [size, setSize] = useState<(typeof VIDEO_SIZES)[number]>(VIDEO_SIZES[1]);
  const [fps, setFps] = useState(30);
  const [seconds, setSeconds] = useState(10);
  const [legend, setLegend] = useState(true);
  const [timestamp, setTimestamp] = useState(true);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const action = useAction();
  const cancel = useRef<AbortController | null>(null);
  const invalid = checkVideo(seconds, fps) ?? (kind === 'camera' && keyframes.length < 2 ? 'Add at least two keyframes: move the map, then "Add the current view".' : null);

  const run = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      cancel.current = new AbortController();
      setProgress({ done: 0, total: Math.round(seconds * fps) });
      try {
        const source = kind === 'time' ? { kind, filterIndex } : { kind, keyframes };
        const blob = await renderMapVideo(store, { width: size.width, height: size.height, fps, seconds, source, legend, timestamp, stamp: zone === UTC ? undefined : zonedFormatter(zone, 'YYYY-MM-DD HH:mm z'), signal: cancel.current.signal, onProgress: (done, total) => setProgress({ done, total }) });
        saveBlob(blob, `${downloadFileBase(mapName)}.webm`);
        onClose();
      } catch (err) {
        if (err instanceof DOMException && err.name === 'AbortError') return;
        throw err;
      } finally {
        cancel.current = null;
        setProgress(null);
      }
    });
  };

  return (
    <Dialog title="Export video" onClose={() => (cancel.current?.abort(), onClose())}>
      <form className="form export-video-form" onSubmit={run}>
        <fieldset className="export-format" disabled={action.pending}>
          <legend>What plays</legend>
          <label className="checkbox">
            <input type="radio" name="video-source" checked={kind === 'time'} disabled={!filters.length} onChange={() => setKind('time')} /> Time playback
            {!filters.length && ' (the map has no time filter)'}
          </label>
          <label className="checkbox">
            <input type="radio" name="video-source" checked={kind === 'camera'} onChange={() => setKind('camera')} /> Camera path
          </label>
        </fieldset>
        {kind === 'time' && filters.length > 1 && (
          <>
            <label htmlFor="video-filter">Time filter</label>
            <select id="video-filter" value={filterIndex} onChange={(e) => setFilterIndex(Number(e.target.value))}>
              {filters.map((f) => (
                <option key={f.index} value={f.index}>
                  {f.name}
                </option>
              ))}
            </select>
          </>
        )}
        {kind === 'camera' && (
          <div className="video-keyframes">
            <ol aria-label="Keyframes">
              {keyframes.map((k, i) => (
                <li key={i}>
                  {cameraLabel(k)}{' '}
                  <button type="button" className="button button-small" aria-label={`Remove keyframe ${i + 1}`} onClick={() => setKeyframes(keyframes.filter((_, j) => j !== i))}>
                    Remove
                  </button>
                </li>
              ))}
            </ol>
            <button type="button" className="button" onClick={() => setKeyframes([...keyframes, currentCamera(store)])}>
              Add the current view
            </button>
          </div>
        )}
        <label htmlFor="video-size">Size</label>
        <select id="video-size" value={size.label} onChange={(e) => setSize(VIDEO_SIZES.find((s) => s.label === e.target.value) ?? VIDEO_SIZES[1])}>
          {VIDEO_SIZES.map((s) => (
            <option key={s.label}>{s.label}</option>
          ))}
        </select>
        <div className="embed-size">
          <TextField label="Length (seconds)" type="number" min={VIDEO_LIMITS.minSeconds} max={VIDEO_LIMITS.maxSeconds} value={seconds} onChange={(e) => setSeconds(Number(e.target.value))} />
          <label htmlFor="video-fps">Frames per second</label>
          <select id="video-fps" value={fps} onChange={(e) => setFps(Number(e.target.value))}>
            {VIDEO_FPS.map((f) => (
              <option key={f}>{f}</option>
            ))}
          </select>
        </div>
        <label className="checkbox">
          <input type="checkbox" checked={legend} onChange={(e) => setLegend(e.target.checked)} /> Legend of the visible layers
        </label>
        {kind === 'time' && (
          <label className="checkbox">
            <input type="checkbox" checked={timestamp} onChange={(e) => setTimestamp(e.target.checked)} /> Time of each frame ({zone})
          </label>
        )}
        {progress && (
          <p role="status">
            <progress max={progress.total} value={progress.done} aria-label="Video frames drawn" /> Frame {progress.done} of {progress.total}
          </p>
        )}
        <ErrorMessage message={invalid ?? action.error} />
        <footer className="dialog-actions">
          {action.pending ? (
            <button type="button" className="button" onClick={() => cancel.current?.abort()}>
              Cancel
            </button>
          ) : (
            <button type="submit" className="button button-primary" disabled={Boolean(invalid)}>
              Export
            </button>
          )}
        </footer>
      </form>
    </Dialog>
  );
}
