import type { Store } from 'redux';
import { cleanupExportImage, setFilterAnimationTime, startExportingImage, updateMap } from '@kepler.gl/actions';
import { EXPORT_IMG_RATIOS, RESOLUTIONS } from '@kepler.gl/constants';
import { convertToPng } from '@kepler.gl/utils';
import { viewsIn, type DrawnBasemap, type DrawnDeck } from '../kepler/drawn-views';
import { FONT, box, drawAttribution } from './decorate';
import { attributionOf, instance, waitForImage } from './render';
import { cameraAt, checkVideo, frameCount, overlayTime, playbackValue, type Camera, type TimeFilterWindow } from './video-plan';

export type VideoSource = { kind: 'time'; filterIndex: number } | { kind: 'camera'; keyframes: Camera[] };

export interface VideoOptions {
  width: number;
  height: number;
  fps: number;
  seconds: number;
  source: VideoSource;
  legend: boolean;
  timestamp: boolean;
  /** How the timestamp reads (the viewer's zone, time-zone/zones.ts); UTC (overlayTime) when not given. */
  stamp?: (ms: number) => string;
  onProgress?: (framesDone: number, frames: number) => void;
  signal?: AbortSignal;
}

interface KeplerFilter extends TimeFilterWindow {
  type: string;
  name: string[];
}

/** The map's time filters (kepler's "timeRange"), with their index in kepler's filter list. */
export function timeFilters(store: Store): { index: number; name: string }[] {
  const filters = (instance(store) as unknown as { visState: { filters: KeplerFilter[] } } | undefined)?.visState.filters ?? [];
  return filters.flatMap((f, index) => (f.type === 'timeRange' && Array.isArray(f.domain) ? [{ index, name: f.name.join(', ') }] : []));
}

/** The builder's camera now, as a keyframe. */
export function currentCamera(store: Store): Camera {
  const m = (instance(store) as unknown as { mapState: Camera }).mapState;
  return { longitude: m.longitude, latitude: m.latitude, zoom: m.zoom, pitch: m.pitch ?? 0, bearing: m.bearing ?? 0 };
}

const nextFrame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));
const aborted = () => new DOMException('Export cancelled', 'AbortError');

/**
 * The map as a WebM video: kepler's off-screen export map (the PNG export's PlotContainer, mounted once at the
 * video's size) is moved to each frame's time window or camera, and when deck.gl and the basemap have drawn
 * it, both canvases and the overlays are copied into one canvas that WebCodecs encodes (VP9, VP8 where VP9
 * is missing) into mediabunny's WebM muxer. Frames are stamped i / fps whatever they took to draw, so the file
 * holds every frame and its duration. The builder's own view and filter are put back afterwards.
 */
export async function renderMapVideo(store: Store, opts: VideoOptions): Promise<Blob> {
  const invalid = checkVideo(opts.seconds, opts.fps);
  if (invalid) throw new Error(invalid);
  if (opts.source.kind === 'camera' && opts.source.keyframes.length < 2) throw new Error('A camera path needs at least two keyframes.');
  const before = instance(store) as unknown as (ReturnType<typeof instance> & { visState: { filters: KeplerFilter[] } }) | undefined;
  if (!before) throw new Error('The map is not open yet.');
  const filter = opts.source.kind === 'time' ? before.visState.filters[opts.source.filterIndex] : undefined;
  if (opts.source.kind === 'time' && filter?.type !== 'timeRange') throw new Error('The map has no time filter to play.');
  const savedCamera = currentCamera(store);
  const { Output, WebMOutputFormat, BufferTarget, CanvasSource, QUALITY_HIGH, canEncodeVideo } = await import('mediabunny');
  const codec = (await canEncodeVideo('vp9', { width: opts.width, height: opts.height })) ? 'vp9' : 'vp8';

  store.dispatch(startExportingImage({ ratio: EXPORT_IMG_RATIOS.CUSTOM, resolution: RESOLUTIONS.ONE_X, mapW: opts.width, mapH: opts.height, legend: opts.legend, center: false } as never));
  const output = new Output({ format: new WebMOutputFormat(), target: new BufferTarget() });
  try {
    // kepler's first screenshot means its export map is mounted and has drawn once.
    await waitForImage(store, opts.signal);
    const area = document.querySelector<HTMLElement>('.export-map-instance > div');
    if (!area) throw new Error('The export map did not open.');
    const views = viewsIn(area);
    const overlay = opts.legend ? await domOverlay(area, opts.width, opts.height) : null;
    const sources = before.mapStyle.mapStyles[before.mapStyle.styleType]?.style?.sources ?? {};
    const attribution = attributionOf(Object.values(sources).map((s) => s.attribution ?? ''));

    const frame = document.createElement('canvas');
    frame.width = opts.width;
    frame.height = opts.height;
    const ctx = frame.getContext('2d');
    if (!ctx) throw new Error('This browser cannot draw the video.');
    const track = new CanvasSource(frame, { codec, bitrate: QUALITY_HIGH, keyFrameInterval: 2 });
    output.addVideoTrack(track, { frameRate: opts.fps });
    await output.start();

    const n = frameCount(opts.seconds, opts.fps);
    for (let i = 0; i < n; i++) {
      if (opts.signal?.aborted) throw aborted();
      let label: string | null = null;
      if (filter && opts.source.kind === 'time') {
        const value = playbackValue(filter, i, n);
        store.dispatch(setFilterAnimationTime(opts.source.filterIndex, 'value', value));
        label = (opts.stamp ?? overlayTime)(value[1]);
      } else if (opts.source.kind === 'camera') {
        store.dispatch(updateMap(cameraAt(opts.source.keyframes, i, n) as never));
      }
      await drawn(views, opts.signal);
      ctx.clearRect(0, 0, opts.width, opts.height);
      for (const canvas of layered(area, views)) ctx.drawImage(canvas, 0, 0, opts.width, opts.height);
      if (overlay) ctx.drawImage(overlay, 0, 0, opts.width, opts.height);
      drawOverlays(ctx, opts.width, opts.height, opts.timestamp ? label : null, attribution);
      await track.add(i / opts.fps, 1 / opts.fps);
      opts.onProgress?.(i + 1, n);
    }
    await output.finalize();
    const buffer = (output.target as InstanceType<typeof BufferTarget>).buffer;
    if (!buffer) throw new Error('The video could not be written.');
    return new Blob([buffer], { type: 'video/webm' });
  } catch (e) {
    if (output.state !== 'finalized' && output.state !== 'canceled') await output.cancel();
    throw e;
  } finally {
    if (filter && opts.source.kind === 'time') store.dispatch(setFilterAnimationTime(opts.source.filterIndex, 'value', filter.value));
    if (opts.source.kind === 'camera') store.dispatch(updateMap(savedCamera as never));
    store.dispatch(cleanupExportImage());
  }
}

/**
 * The export map's canvases in the order they are seen, bottom first: the basemap, deck.gl's layers, then the
 * rest (a basemap's labels kepler draws above the layers, when its style has them apart). Not the page's order:
 * kepler puts deck's canvas before the basemap's and lays the basemap under it by CSS (z-index -1), so frames
 * copied in page order showed the opaque basemap over every earthquake (only the legend's swatches were seen).
 */
function layered(area: HTMLElement, views: { basemaps: DrawnBasemap[]; decks: DrawnDeck[] }): HTMLCanvasElement[] {
  const bottom = views.basemaps.map((b) => b.getCanvas());
  const decks = views.decks.flatMap((d) => (d.canvas ? [d.canvas] : []));
  const rest = [...area.querySelectorAll('canvas')].filter((c) => !bottom.includes(c) && !decks.includes(c));
  return [...bottom, ...decks, ...rest];
}

/**
 * Waits until the export map has drawn the state just dispatched: React and deck take it in the next frame,
 * maplibre draws a moved camera in the one after; then deck must have nothing left to draw and the basemap
 * its tiles (a camera path reaches zooms whose tiles are fetched on the way). 30 s at most per frame.
 */
async function drawn(views: { basemaps: DrawnBasemap[]; decks: DrawnDeck[] }, signal?: AbortSignal): Promise<void> {
  await nextFrame();
  await nextFrame();
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    if (signal?.aborted) throw aborted();
    const decksIdle = views.decks.every((d) => d.needsRedraw({ clearRedrawFlags: false }) === false);
    const basemapsIdle = views.basemaps.every((b) => b.loaded() && b.areTilesLoaded() && !b.isMoving());
    if (decksIdle && basemapsIdle) return;
    await nextFrame();
  }
}

/**
 * What kepler lays over the export map as HTML (the legend of the visible layers), drawn once on a transparent
 * image at the video's size: it does not change while the video plays, and redrawing HTML for every frame
 * would cost more than the map.
 */
async function domOverlay(area: HTMLElement, width: number, height: number): Promise<HTMLImageElement> {
  const keep = (node: Node) => !(node instanceof HTMLCanvasElement) && !(node instanceof HTMLElement && /maplibregl-control-container|mapboxgl-control-container/.test(node.className));
  const uri = (await convertToPng(area, { filter: keep, width, height })) as string;
  const img = new Image();
  img.src = uri;
  await img.decode();
  return img;
}

/** The time the frame shows (top left) and the basemap's attribution (bottom right), on white boxes as the PNG export's. */
function drawOverlays(ctx: CanvasRenderingContext2D, width: number, height: number, time: string | null, attribution: string) {
  const u = Math.max(0.5, height / 1080);
  const pad = Math.round(12 * u);
  if (time) {
    const size = Math.round(26 * u);
    ctx.font = `600 ${size}px ${FONT}`;
    box(ctx, pad, pad, ctx.measureText(time).width + 2 * pad, size + 2 * pad);
    ctx.fillStyle = '#1b1d22';
    ctx.textBaseline = 'top';
    ctx.fillText(time, 2 * pad, 2 * pad);
  }
  drawAttribution(ctx, width, height, attribution);
}
