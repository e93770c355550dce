/**
 * What the cancelling wrapper uses of loaders.gl's MVT tile source (4.x, the one kepler.gl 3.2 builds for a
 * remote MVT tileset). `fetch` is an instance field there (DataSource sets it from the load options; with none,
 * the global fetch), and `getTileData` is bound in its constructor and read off the source by kepler's layer.
 */
export interface TileSourceLike {
  fetch: (url: string, init?: RequestInit) => Promise<Response>;
  getTileURL(x: number, y: number, z: number): string;
  getTileData: (tile: TileRequest) => Promise<unknown>;
}

/** What deck.gl's tile layer hands getTileData for each tile: its index and the signal aborted when the tile is dropped. */
export interface TileRequest {
  index: { x: number; y: number; z: number };
  signal?: AbortSignal;
}

const wrapped = new WeakSet<object>();

function isTileSource(source: object): source is TileSourceLike {
  const s = source as Partial<TileSourceLike>;
  return typeof s.fetch === 'function' && typeof s.getTileURL === 'function' && typeof s.getTileData === 'function';
}

/**
 * Hands each tile's request the signal deck.gl gives that tile. deck.gl aborts the tiles that left the view
 * (past its six requests in flight) but loaders.gl's MVT source fetches without the signal, so a map panned or
 * zoomed across a city kept downloading every tile it passed over, ahead of the ones now in view. The signal is
 * found by the tile's URL: the source builds the same URL for the fetch a moment later. Requests keep the
 * browser's HTTP cache (nothing here changes the fetch's cache mode), where versioned tile URLs stay a year.
 * A source of another shape is returned untouched.
 */
export function cancelTilesThatLeaveTheView<T>(source: T): T {
  if (typeof source !== 'object' || source === null || wrapped.has(source) || !isTileSource(source)) return source;
  wrapped.add(source);
  const tiles: TileSourceLike = source;
  const signals = new Map<string, AbortSignal>();
  const fetchTile = tiles.fetch;
  const load = tiles.getTileData;
  // The source's own fetch drops a second argument (`(url) => fetch(url)` when no fetch function is in its
  // load options, and kepler's options never reach it), so a tile with a signal is fetched here, as it would be.
  tiles.fetch = (url, init) => {
    const signal = init?.signal ?? signals.get(url);
    return signal ? fetch(url, { ...init, signal }) : fetchTile(url, init);
  };
  tiles.getTileData = async (tile) => {
    const url = tiles.getTileURL(tile.index.x, tile.index.y, tile.index.z);
    if (tile.signal) signals.set(url, tile.signal);
    try {
      return await load(tile);
    } finally {
      if (signals.get(url) === tile.signal) signals.delete(url);
    }
  };
  return source;
}
