import type { Store } from 'redux';
import { cleanupExportImage, startExportingImage } from '@kepler.gl/actions';
import { EXPORT_IMG_RATIOS, RESOLUTIONS } from '@kepler.gl/constants';
import { MAP_ID } from '../kepler/store';
import { decorate, type Decorations } from './decorate';

/** The largest image the studio renders: 4K UHD (a software-WebGL frame past it took minutes, and most GPUs cap textures near 8K). */
export const MAX_EXPORT = { width: 3840, height: 2160 };
export const EXPORT_SIZES = [
  { label: '1280 × 720', width: 1280, height: 720 },
  { label: '1920 × 1080', width: 1920, height: 1080 },
  { label: '2560 × 1440', width: 2560, height: 1440 },
  { label: '3840 × 2160', width: 3840, height: 2160 },
] as const;

interface ExportImageState {
  imageDataUri: string;
  processing: boolean;
  error: unknown;
}
interface KeplerInstance {
  uiState: { exportImage: ExportImageState };
  mapState: { latitude: number; zoom: number; width: number; height: number };
  mapStyle: { styleType: string; mapStyles: Record<string, { style?: { sources?: Record<string, { attribution?: string }> } } | undefined> };
}

export const instance = (store: Store) => (store.getState() as { keplerGl: Record<string, KeplerInstance | undefined> }).keplerGl[MAP_ID];

/** A size the exporter accepts, or the message that says why not. */
export function checkExportSize(width: number, height: number): string | null {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 200 || height < 200) return 'The image must be at least 200 × 200 pixels.';
  if (width > MAX_EXPORT.width || height > MAX_EXPORT.height) return `The image can be at most ${MAX_EXPORT.width} × ${MAX_EXPORT.height} pixels.`;
  return null;
}

/**
 * The map drawn at `width` × `height` by kepler's own export flow: kepler mounts its PlotContainer (a second
 * MapContainer, off-screen, with deck.gl and the basemap at that size and the zoom raised so it shows the
 * screen's area) and turns it into a PNG with the legend of the visible layers; the studio then adds the
 * title, the scale bar and the attribution. kepler's "custom" ratio is the one whose size is taken as given.
 */
export async function renderMapImage(store: Store, opts: { width: number; height: number; legend: boolean; title: string; signal?: AbortSignal }): Promise<HTMLCanvasElement> {
  const invalid = checkExportSize(opts.width, opts.height);
  if (invalid) throw new Error(invalid);
  const before = instance(store);
  if (!before) throw new Error('The map is not open yet.');
  store.dispatch(
    startExportingImage({ ratio: EXPORT_IMG_RATIOS.CUSTOM, resolution: RESOLUTIONS.ONE_X, mapW: opts.width, mapH: opts.height, legend: opts.legend, center: false } as never),
  );
  try {
    const uri = await waitForImage(store, opts.signal);
    const basemap = await drawnBasemap(opts.signal);
    const { mapState, mapStyle } = before;
    // kepler raised the zoom by log2(scale), scale being the image's long side over the screen map's.
    const landscape = opts.width / opts.height > 1;
    const scale = landscape ? opts.width / Math.max(1, mapState.width) : opts.height / Math.max(1, mapState.height);
    const sources = mapStyle.mapStyles[mapStyle.styleType]?.style?.sources ?? {};
    const decorations: Decorations = {
      title: opts.title,
      metresPerPixel: metresPerPixel(mapState.latitude, mapState.zoom) / scale,
      attribution: attributionOf(Object.values(sources).map((s) => s.attribution ?? '')),
    };
    return await decorate(uri, basemap, opts.width, opts.height, decorations);
  } finally {
    store.dispatch(cleanupExportImage());
  }
}

/** kepler sets the data URI (or an error) when its PlotContainer has drawn; software WebGL at 4K takes a while. */
export function waitForImage(store: Store, signal?: AbortSignal, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const s = instance(store)?.uiState.exportImage;
      if (s?.error) done(() => reject(new Error(`The image could not be drawn: ${String((s.error as Error).message ?? s.error)}`)));
      else if (s?.imageDataUri && !s.processing) done(() => resolve(s.imageDataUri));
    };
    const unsubscribe = store.subscribe(check);
    const timer = window.setTimeout(() => done(() => reject(new Error('The image took too long to draw.'))), timeoutMs);
    const abort = () => done(() => reject(new DOMException('Export cancelled', 'AbortError')));
    signal?.addEventListener('abort', abort);
    function done(then: () => void) {
      unsubscribe();
      window.clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      then();
    }
    check();
  });
}

/**
 * The export map's basemap canvas once its drawing has settled. kepler's DOM-to-image copy of it came out
 * transparent (taken on maplibre's first render after its style loads, before a frame was kept), so the studio
 * draws the canvas itself under kepler's image: when a 32 × 18 sample of it has stayed the same for half a
 * second (tiles arrive and draw one by one); a basemap still changing after 20 s is taken as it is.
 */
export async function drawnBasemap(signal?: AbortSignal): Promise<HTMLCanvasElement | null> {
  const probe = document.createElement('canvas');
  probe.width = 32;
  probe.height = 18;
  const ctx = probe.getContext('2d', { willReadFrequently: true });
  let last = '';
  let same = 0;
  let canvas: HTMLCanvasElement | null = null;
  for (let waited = 0; waited < 20_000 && !signal?.aborted && ctx; waited += 100) {
    canvas = document.querySelector<HTMLCanvasElement>('.export-map-instance canvas.maplibregl-canvas');
    if (canvas && canvas.width > 0) {
      ctx.clearRect(0, 0, 32, 18);
      ctx.drawImage(canvas, 0, 0, 32, 18);
      const data = ctx.getImageData(0, 0, 32, 18).data;
      const sample = data[3] ? Array.from(data).join(',') : '';
      same = sample && sample === last ? same + 1 : 0;
      last = sample;
      if (same >= 5) return canvas;
    }
    await new Promise((r) => window.setTimeout(r, 100));
  }
  return last ? canvas : null;
}

/** Ground metres a screen pixel covers at a latitude (Web Mercator, 512-pixel tiles as maplibre and deck.gl use). */
export function metresPerPixel(latitude: number, zoom: number): number {
  return (40_075_016.686 * Math.cos((latitude * Math.PI) / 180)) / (512 * 2 ** zoom);
}

/** The basemap sources' attributions as one line of text: their HTML links dropped, duplicates once. */
export function attributionOf(html: string[]): string {
  const texts = html.map((h) => h.replace(/<[^>]*>/g, '').replace(/&copy;/g, '©').replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim()).filter(Boolean);
  return [...new Set(texts)].join(' · ');
}
