import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { arrowCopyKey, geoArrowCopyKey, rejectedLinesKey, type Engine } from '@studio/engine';
// From the tiles package itself, not through services/hextiles or vector-tiles: those import datasets.ts, which imports this.
import { archiveKeyOf, tilesKeyOf } from '@studio/tiles';

/**
 * The files a dataset's data is made of, as keys derived from its Parquet table's key: the table itself,
 * a hex-tile dataset's tile archive and a vector-tile dataset's PMTiles archive (each sits beside the
 * table under the same name and switches with it), and the table's Arrow and GeoArrow copies when it has them.
 */
const DATA_FILES: ((tableKey: string) => string)[] = [(key) => key, archiveKeyOf, tilesKeyOf, arrowCopyKey, geoArrowCopyKey, rejectedLinesKey];

/**
 * Copies a dataset's data files from `fromKey` to `toKey` (a clone's data): every file that exists, so a
 * copied hex-tile or vector-tile dataset serves its tiles like its source. The table must exist.
 */
export async function copyDatasetFiles(engine: Engine, fromKey: string, toKey: string): Promise<void> {
  for (const keyOf of DATA_FILES) {
    const from = keyOf(fromKey);
    if (from !== fromKey && !(await engine.store.exists(from))) continue;
    // put() moves the file it is given into the store: copy the source to a temp file first.
    const copy = path.join(engine.tmpDir, `clone-${randomUUID()}${path.extname(from)}`);
    await fs.copyFile(await engine.store.localPath(from), copy);
    await engine.store.put(keyOf(toKey), copy);
  }
}
