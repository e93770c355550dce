import { useEffect, useRef, useState, type ComponentType } from 'react';
import { Provider } from 'react-redux';
import type { Store } from 'redux';
import { StudioKeplerGl } from '../basemaps/inject';
import { MAP_ID } from './store';

/** The part of deck.gl's Deck the ready check reads. */
interface DeckLike {
  layerManager?: { getLayers(): unknown[] } | null;
  needsRedraw(opts: { clearRedrawFlags: boolean }): string | false;
}

/** The props of KeplerGl the studio sets; kepler's own typing asks for more than it needs. */
interface KeplerProps {
  id: string;
  width: number;
  height: number;
  mapboxApiAccessToken: string;
  appName: string;
  readOnly?: boolean;
  deckGlProps?: object;
  onDeckInitialized?: (deck: DeckLike) => void;
  onKeplerGlInitialized?: () => void;
}
const KeplerGl = StudioKeplerGl as ComponentType<KeplerProps>;

declare global {
  interface Window {
    /** Set when the first frame with layers has been drawn (browser tests wait on it). */
    __studioMapReady?: boolean;
  }
}

/**
 * The kepler.gl builder in its own redux store, sized to its container. `expectLayers` says whether
 * data was added: the ready flag then waits for a frame drawn with layers.
 */
export function KeplerMap({ store, readOnly, expectLayers, onInitialized }: { store: Store; readOnly: boolean; expectLayers: boolean; onInitialized?: () => void }) {

  const box = useRef<HTMLDivElement>(null);
  const deck = useRef<DeckLike | null>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setSize({ width: Math.max(320, Math.floor(el.clientWidth)), height: Math.max(240, Math.floor(el.clientHeight)) });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    window.__studioMapReady = false;
    let settled = 0;
    const timer = window.setInterval(() => {
      const d = deck.current;
      const layers = layerCount(store);
      // kepler hands over the Deck only sometimes (its ref is set after WebGL starts): without it,
      // the layers being in the store and three animation frames stand for "drawn".
      const idle = d ? d.needsRedraw({ clearRedrawFlags: false }) === false : true;
      settled = (expectLayers ? layers > 0 : true) && idle && document.querySelector('.kepler-box canvas') ? settled + 1 : 0;
      if (settled >= 2) {
        window.clearInterval(timer);
        const frames = (n: number) => (n === 0 ? ((window.__studioMapReady = true), setReady(true)) : requestAnimationFrame(() => frames(n - 1)));
        frames(3);
      }
    }, 100);
    return () => window.clearInterval(timer);
  }, [expectLayers, store]);

  return (
    <div ref={box} className="kepler-box" data-map-ready={ready ? 'true' : 'false'}>
      {size && (
        <Provider store={store}>
          <KeplerGl
            id={MAP_ID}
            width={size.width}
            height={size.height}
            mapboxApiAccessToken=""
            appName="Studio"
            readOnly={readOnly}
            deckGlProps={{ glOptions: { preserveDrawingBuffer: true } }}
            // kepler registers its instance when it mounts; data dispatched before that is dropped.
            onKeplerGlInitialized={onInitialized}
            onDeckInitialized={(d) => {
              deck.current = d;
            }}
          />
        </Provider>
      )}
    </div>
  );
}

function layerCount(store: Store): number {
  const root = store.getState() as { keplerGl: Record<string, { visState?: { layers?: unknown[] } } | undefined> };
  return root.keplerGl[MAP_ID]?.visState?.layers?.length ?? 0;
}

/** The map's canvases (basemap, then deck) painted onto one PNG, for the thumbnail. */
export async function captureMapPng(root: HTMLElement): Promise<Blob | null> {
  // The basemap first: its opaque background would otherwise cover the layers drawn by deck.
  const all = [...root.querySelectorAll('canvas')].filter((c) => c.width > 0 && c.height > 0);
  const canvases = [...all.filter((c) => c.classList.contains('maplibregl-canvas')), ...all.filter((c) => !c.classList.contains('maplibregl-canvas'))];
  const base = canvases[0];
  if (!base) return null;
  const out = document.createElement('canvas');
  const scale = Math.min(1, 640 / base.width);
  out.width = Math.round(base.width * scale);
  out.height = Math.round(base.height * scale);
  const ctx = out.getContext('2d');
  if (!ctx) return null;
  for (const c of canvases) ctx.drawImage(c, 0, 0, out.width, out.height);
  return new Promise((resolve) => out.toBlob(resolve, 'image/png'));
}
