// Tiles the studio cuts and serves: vector tiles (PMTiles of Mapbox Vector Tiles), hex tiles (a ZIP of H3 cells
// per tile), the built-in basemaps and their glyphs, and the node's tile cache. The package reads and writes
// through the engine and its object store, handed in; the catalog (which dataset, who may read it, jobs) is the
// server's.
export { TileCache, versionOf } from './tile-cache';

export { VectorTiles, DEFAULT_LAYER, locationOf, tilesKeyOf, type CutRequest } from './vector-tiles/cut';
export { TileArchives } from './vector-tiles/archive';
export { buildTiles, type Location, type TileJob, type TileSummary } from './vector-tiles/tiler';
export { checkTile, VT_OPTIONS } from './vector-tiles/mvt';
export { LINK_BASE, TILE_LINK_TTL_MS, linkQuery, signTileLink, verifyTileLink, type LinkSigner } from './vector-tiles/links';

export { TileArchive } from './hextiles/archive';
export { archiveKeyOf, metadataOf, openArchive, tileDatasetsOf, zipKeyOf, zipUrlOf } from './hextiles/archives';
export { buildTileset, planTileset } from './hextiles/build';
export { arrowEntryName, checkTile as checkHexTile, entryName, parseViewport, tilesInViewport, type TileCounts } from './hextiles/layout';
export { PreparedSource } from './hextiles/source';
export { TIME_PATH, quantileList, quantileValues } from './hextiles/sql';
export { pays, readHexTile, readHexTileGzip, variantOf, type TileAsk } from './hextiles/tile-read';
export { ZipReader, ZipWriter, type ZipEntry } from './hextiles/zip';

export { BasemapTiles } from './basemaps/tiles';
export { GlyphRanges } from './basemaps/glyphs';
export { BASEMAPS, TILE_PATH, basemapOf, styleJson } from './basemaps/styles';
