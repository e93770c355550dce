/**
 * The maplibre maps and deck.gl instances kepler has made (the builder's and, while an export runs, the
 * off-screen one in its PlotContainer), so the video export can ask the off-screen pair whether a frame is
 * drawn. kepler hands both to the same callbacks for every map it mounts; those no longer in the page are
 * forgotten when asked for.
 */
export interface DrawnBasemap {
  getCanvas(): HTMLCanvasElement;
  loaded(): boolean;
  areTilesLoaded(): boolean;
  isMoving(): boolean;
}
export interface DrawnDeck {
  canvas?: HTMLCanvasElement | null;
  needsRedraw(opts: { clearRedrawFlags: boolean }): false | string;
}

const basemaps = new Set<DrawnBasemap>();
const decks = new Set<DrawnDeck>();

export const noteBasemap = (map: DrawnBasemap | null | undefined) => void (map && basemaps.add(map));
export const noteDeck = (deck: DrawnDeck | null | undefined) => void (deck && decks.add(deck));

/** The basemaps (kepler's bottom map and, for labels above the layers, its top map) and decks drawn inside `container`. */
export function viewsIn(container: Element): { basemaps: DrawnBasemap[]; decks: DrawnDeck[] } {
  const pick = <T,>(all: Set<T>, canvas: (v: T) => HTMLCanvasElement | null | undefined): T[] => {
    for (const v of all) if (!canvas(v)?.isConnected) all.delete(v);
    return [...all].filter((v) => container.contains(canvas(v) ?? null));
  };
  return { basemaps: pick(basemaps, (m) => m.getCanvas()), decks: pick(decks, (d) => d.canvas) };
}
