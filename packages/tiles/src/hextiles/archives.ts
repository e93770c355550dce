import path from 'node:path';
import { badInput } from '@studio/schema';
import { checkKey, type Engine } from '@studio/engine';
import { versionOf } from '../tile-cache';
import { TileArchive } from './archive';

/** Open archives by storage key; archives never change under a key, so entries stay valid. */
const OPEN_LIMIT = 64;
const open = new Map<string, Promise<TileArchive>>();

const ZIP_URL = /^store:\/\/(datasets\/[0-9a-f-]{36}\/[A-Za-z0-9_\-.=]+\.zip)$/;

/** A hex-tile dataset's archive sits beside its cells snapshot, with the same name: both switch together. */
export const archiveKeyOf = (snapshotKey: string) => snapshotKey.replace(/\.parquet$/, '.zip');

/** The zipUrl a tileset archive is named by: only archives in the studio's own store exist for it. */
export const zipUrlOf = (key: string) => `store://${key}`;

/** The storage key a zipUrl names: another archive of the same dataset in the store (no outside fetches), or a 422. */
export function zipKeyOf(zipUrl: string, datasetId: string): string {
  const m = ZIP_URL.exec(zipUrl);
  if (!m || !m[1]!.startsWith(`datasets/${datasetId}/`)) {
    throw badInput(`zipUrl must name a tileset archive of this dataset in the studio's store (store://datasets/${datasetId}/<file>.zip)`, 'Archives elsewhere are not fetched');
  }
  return checkKey(m[1]!);
}

/**
 * An archive's metadata as answered for a dataset, with its version and the tile URL that carries it (answers
 * cacheable for a year): a clone copies the archive byte for byte, so the dataset and zipUrl stored inside may
 * name the original; the answer names the one asked about.
 */
export const metadataOf = (archive: TileArchive, datasetId: string) => {
  const version = versionOf(archive.key);
  return { ...archive.meta, dataset: datasetId, zipUrl: zipUrlOf(archive.key), version, tileUrl: `/v1/tileset/${datasetId}/{z}/{hex}?v=${version}` };
};

/**
 * The archive stored under `key`, opened once per node (its index and metadata checked); its entry cache is under
 * the engine's temp folder, refilled on demand after a restart.
 */
export function openArchive(engine: Engine, key: string): Promise<TileArchive> {
  let p = open.get(key);
  if (!p) {
    p = engine.store.localPath(key).then((file) => TileArchive.open(key, file, path.join(engine.tmpDir, 'hextiles')));
    open.set(key, p);
    p.catch(() => open.delete(key));
    if (open.size > OPEN_LIMIT) open.delete(open.keys().next().value!);
  }
  return p;
}

/** Every hex-tile dataset a pipeline reads, wherever in the tree it is named. */
export function tileDatasetsOf(node: unknown, out = new Set<string>()): Set<string> {
  if (!node || typeof node !== 'object') return out;
  const n = node as Record<string, unknown>;
  const id = n.type === 'hexTile' || n.type === 'tileQuantiles' ? n.uuid : n.type === 'tileExtract' ? n.sourceId : undefined;
  if (typeof id === 'string') out.add(id);
  if (Array.isArray(n.input)) for (const child of n.input) tileDatasetsOf(child, out);
  return out;
}
