import { useEffect, useMemo, useRef, useState, type ComponentType } from 'react';
import { Provider } from 'react-redux';
import type { Store } from 'redux';
import { StudioKeplerGl } from './injections';
import { markMap } from '../timing';
import { MAP_ID } from './store';
import { STUDIO_TEXTS } from './studio-texts';
import { TEST_BUILD, testHooksOn } from '../../app/test-hooks';
import { noteBasemap, noteDeck, type DrawnBasemap, type DrawnDeck } from './drawn-views';

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
  localeMessages?: Record<string, Record<string, string>>;
  /** Values merged over kepler's dark theme. */
  theme?: Record<string, string>;
  deckGlProps?: object;
  onDeckInitialized?: (deck: DeckLike) => void;
  onKeplerGlInitialized?: () => void;
  getMapboxRef?: (ref: { getMap(): BasemapLike | null } | null) => void;
}

/** The part of maplibre's Map the basemap wait reads. */
interface BasemapLike {
  loaded(): boolean;
  once(event: 'load', listener: () => void): unknown;
}

/** How long the data waits for the basemap at most: a slow or failing tile server must not hold the layers back. */
const BASEMAP_WAIT_MS = 3_000;
const KeplerGl = StudioKeplerGl as ComponentType<KeplerProps>;

/**
 * kepler's dark theme with the contrast WCAG AA asks of text (4.5:1; axe-core measures it in the browser
 * tests): its labels and secondary text (#6A7485) read at 2.75:1 on its panels (#29323C) and 3.16:1 on its
 * side panel (#242730); #9AA2B1 reads at 5.06:1 and 5.81:1. White on its green buttons (#0F9668) was 3.76:1;
 * #0C7C56 is 5.21:1, and the hover and pressed shades are darker still. The map controls' colour is a copy
 * of the secondary text's, taken when kepler's theme module loads, so it is set too.
 */
const KEPLER_THEME = {
  labelColor: '#9AA2B1',
  subtextColor: '#9AA2B1',
  floatingBtnColor: '#9AA2B1',
  primaryBtnBgd: '#0C7C56',
  primaryBtnBgdHover: '#0A6B4B',
  primaryBtnActBgd: '#0A6B4B',
};

declare global {
  interface Window {
    /** Set when the first frame with layers has been drawn (browser tests wait on it). */
    __studioMapReady?: boolean;
  }
}

interface KeplerMapProps {
  store: Store;
  readOnly: boolean;
  /** Data will be added: the ready flag then waits for a frame drawn with layers. */
  expectLayers: boolean;
  /** kepler has registered its instance (data dispatched before that is dropped). */
  onInitialized?: () => void;
  /**
   * kepler is initialized and the basemap has loaded (or BASEMAP_WAIT_MS passed). Data added here is
   * drawn once: added earlier, the layer is drawn again for each view and layer change that the basemap's
   * start causes (maplibre's first resize and view sync, then kepler's style-load update), and with
   * software WebGL each of those redraws of a million points costs as much as the first.
   */
  onMapReady?: () => void;
}

/** The kepler.gl builder in its own redux store, sized to its container. */
export function KeplerMap({ store, readOnly, expectLayers, onInitialized, onMapReady }: KeplerMapProps) {
  const box = useRef<HTMLDivElement>(null);
  const deck = useRef<DeckLike | null>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const [ready, setReady] = useState(false);
  const mapReady = useMapReady(onMapReady);
  const initialized = useRef(onInitialized);
  initialized.current = onInitialized;

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => {
      const width = Math.max(320, Math.floor(el.clientWidth));
      const height = Math.max(240, Math.floor(el.clientHeight));
      // The same size keeps the same state: a new object would re-render kepler for nothing.
      setSize((old) => (old && old.width === width && old.height === height ? old : { width, height }));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    if (TEST_BUILD && testHooksOn()) window.__studioMapReady = false;
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
        const frames = (n: number) => (n === 0 ? (markMap('first-frame'), TEST_BUILD && testHooksOn() && (window.__studioMapReady = true), setReady(true)) : requestAnimationFrame(() => frames(n - 1)));
        frames(3);
      }
    }, 100);
    return () => window.clearInterval(timer);
  }, [expectLayers, store]);

  // The kepler element is kept while its inputs stay: any re-render of kepler gives its editor layer
  // new props, and deck then redraws every layer (seconds for a million points in software WebGL).
  const kepler = useMemo(
    () =>
      size && (
        <Provider store={store}>
          <KeplerGl
            id={MAP_ID}
            width={size.width}
            height={size.height}
            mapboxApiAccessToken=""
            appName="Studio"
            localeMessages={STUDIO_TEXTS}
            theme={KEPLER_THEME}
            readOnly={readOnly}
            deckGlProps={DECK_GL_PROPS}
            // kepler registers its instance when it mounts; data dispatched before that is dropped.
            onKeplerGlInitialized={() => {
              initialized.current?.();
              mapReady.initialized();
            }}
            getMapboxRef={(ref) => {
              // kepler calls these for its export map too: the video export finds that one's (drawn-views).
              noteBasemap(ref?.getMap() as unknown as DrawnBasemap | null);
              mapReady.basemap(ref?.getMap() ?? null);
            }}
            onDeckInitialized={(d) => {
              noteDeck(d as unknown as DrawnDeck);
              deck.current = d;
            }}
          />
        </Provider>
      ),
    [store, size, readOnly, mapReady],
  );

  return (
    <div ref={box} className="kepler-box" data-map-ready={ready ? 'true' : 'false'}>
      {kepler}
    </div>
  );
}

/** The thumbnail reads the deck canvas after drawing. */
const DECK_GL_PROPS = { glOptions: { preserveDrawingBuffer: true } };

/** Calls `onMapReady` once, when kepler is initialized and its basemap loaded (or the wait ran out). */
function useMapReady(onMapReady: (() => void) | undefined) {
  const latest = useRef(onMapReady);
  latest.current = onMapReady;
  const [gate] = useState(() => {
    const s = { initialized: false, basemap: false, fired: false, timer: 0 };
    const check = () => {
      if (s.fired || !s.initialized || !s.basemap) return;
      s.fired = true;
      window.clearTimeout(s.timer);
      markMap('basemap-ready');
      // Two frames: kepler's own update on style load (layers re-made for the loaded style) is drawn first.
      requestAnimationFrame(() => requestAnimationFrame(() => latest.current?.()));
    };
    const basemapDone = () => {
      s.basemap = true;
      check();
    };
    return {
      initialized() {
        if (s.initialized) return;
        s.initialized = true;
        s.timer = window.setTimeout(basemapDone, BASEMAP_WAIT_MS);
        check();
      },
      basemap(map: BasemapLike | null) {
        if (!map || s.basemap) return;
        if (map.loaded()) basemapDone();
        else map.once('load', basemapDone);
      },
      stop: () => window.clearTimeout(s.timer),
    };
  });
  useEffect(() => gate.stop, [gate]);
  return gate;
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
