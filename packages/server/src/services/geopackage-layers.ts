import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { badInput, bestEffort } from '@studio/schema';
import { geopackageLayers, kmlFolders } from '@studio/engine';
import type { ResourceRow } from './records';
import { receiveUpload, uploadMeta, type DatasetService } from './datasets';

export const GEOPACKAGE_TYPE = 'application/geopackage+sqlite3';

/** The files of several layers, by media type, with how their layers are listed: GeoPackage feature tables, KML/KMZ folders. */
const LAYERED: Record<string, { label: string; list: (file: string) => Promise<string[]>; none: string }> = {
  [GEOPACKAGE_TYPE]: { label: 'GeoPackage', list: geopackageLayers, none: 'Could not read the GeoPackage: it holds no feature layer (a table with geometry)' },
  'application/vnd.google-earth.kml+xml': { label: 'KML', list: (f) => kmlFolders(f, false), none: 'Could not read the KML: it holds no features' },
  'application/vnd.google-earth.kmz': { label: 'KMZ', list: (f) => kmlFolders(f, true), none: 'Could not read the KMZ: it holds no features' },
};

/** What the multi-layer upload uses: the engine's temp folder, ingestion, and the route's own create and discard. */
export interface LayerUploadDeps {
  tmpDir: string;
  datasets: Pick<DatasetService, 'ingestWith'>;
  /** A new managed dataset named for a layer (with its audit record). */
  create: (name: string) => Promise<ResourceRow>;
  /** Removes a dataset this call made, with its data (a later layer was refused). */
  discard: (id: string) => Promise<void>;
}

/**
 * A GeoPackage upload made into one dataset a feature layer (a KML or KMZ into one a folder, `layer` naming the
 * folder's path): the file is received once, its layers listed, and each ingested with `layer` set. All or nothing: a layer refused removes the datasets made before it.
 * Answers each layer's name with its dataset, in the file's order.
 */
export async function uploadEachLayer(deps: LayerUploadDeps, body: NodeJS.ReadableStream, contentType: string, contentEncoding: string | undefined, baseName: string | undefined): Promise<{ layer: string; row: ResourceRow }[]> {
  const layered = LAYERED[contentType.split(';')[0]!.trim().toLowerCase()];
  if (!layered) throw badInput(`This call reads GeoPackage, KML and KMZ files: send the file as ${Object.keys(LAYERED).join(', ')}`);
  const work = path.join(deps.tmpDir, 'uploads');
  await fs.mkdir(work, { recursive: true });
  const file = path.join(work, `layers-${randomUUID()}`);
  const made: ResourceRow[] = [];
  try {
    if ((await receiveUpload(body, file, contentEncoding)) === 'gzip') throw badInput(`Send the ${layered.label} uncompressed: its layers are listed before it is read`);
    if ((await fs.stat(file)).size === 0) throw badInput('The file is empty');
    const layers = await layered.list(file);
    if (!layers.length) throw badInput(layered.none);
    const answer: { layer: string; row: ResourceRow }[] = [];
    for (const layer of layers) {
      const row = await deps.create(baseName ? `${baseName}: ${layer}` : layer);
      made.push(row);
      // Each ingestion removes the file it is given: it gets a link to the one received, not a copy.
      const ready = await deps.datasets.ingestWith(row, uploadMeta(contentType), async (given) => {
        await fs.link(file, given);
        return { contentType, contentEncoding: undefined };
      }, { csv: { layer } });
      answer.push({ layer, row: ready });
    }
    return answer;
  } catch (e) {
    for (const row of made) await bestEffort(deps.discard(row.id), `Removing dataset ${row.id} of a refused GeoPackage`);
    throw e;
  } finally {
    await fs.rm(file, { force: true });
  }
}
