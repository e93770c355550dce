import { readFile } from 'node:fs/promises';
import { DOMParser } from '@xmldom/xmldom';
import { gpx, kmlWithFolders } from '@tmcw/togeojson';
import { unzipSync, strFromU8 } from 'fflate';
import type { Feature } from 'geojson';
import { badInput } from '@studio/schema';
import { writeFeatureCollection } from './geojson-file';
import { assertWholeFileSize } from './whole-file';

type Root = ReturnType<typeof kmlWithFolders>;
type Child = Root['children'][number];

/** An XML document, or 422 with the parser's first complaint (its line and column). */
function parseXml(text: string, label: string): Document {
  let problem: string | null = null;
  let doc: ReturnType<DOMParser['parseFromString']> | null = null;
  try {
    doc = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') problem ??= message;
      },
    }).parseFromString(text, 'text/xml');
  } catch (e) {
    // xmldom throws on a fatal error (a document cut short) after reporting it.
    problem ??= (e as Error).message;
  }
  if (problem || !doc?.documentElement) throw badInput(`Could not read ${label}: ${String(problem ?? 'no document').split('\n')[0]}`);
  return doc as unknown as Document;
}

/** KML features with the folders they sit in, as a `folder` property ("Parks / North"). */
function* kmlFeatures(node: Root | Child, path: string[]): Generator<Feature | Feature<null>> {
  if (node.type === 'Feature') {
    yield path.length ? { ...node, properties: { folder: path.join(' / '), ...node.properties } } : node;
    return;
  }
  const name = node.type === 'folder' && typeof node.meta?.name === 'string' ? [node.meta.name] : [];
  for (const child of node.children) yield* kmlFeatures(child, [...path, ...name]);
}

function kmlDocument(text: string, out: string): Promise<number> {
  const doc = parseXml(text, 'KML');
  if (doc.documentElement.nodeName.toLowerCase() !== 'kml') throw badInput('Could not read KML: the document is not KML (no <kml> root)');
  return writeFeatureCollection(out, kmlFeatures(kmlWithFolders(doc), []));
}

/** KML (folders kept as a `folder` column) as GeoJSON, through @tmcw/togeojson. */
export async function kmlToGeoJson(input: string, out: string): Promise<number> {
  await assertWholeFileSize(input, 'KML');
  return kmlDocument(await readFile(input, 'utf8'), out);
}

/** KMZ: the zip's first .kml document (doc.kml by convention). */
export async function kmzToGeoJson(input: string, out: string): Promise<number> {
  await assertWholeFileSize(input, 'KMZ');
  let docs: Record<string, Uint8Array>;
  try {
    docs = unzipSync(await readFile(input), { filter: (f) => /\.kml$/i.test(f.name) });
  } catch {
    throw badInput('Could not read the KMZ: the file is not a zip archive or it is damaged');
  }
  const name = Object.keys(docs).sort((a, b) => Number(b.endsWith('doc.kml')) - Number(a.endsWith('doc.kml')))[0];
  if (!name) throw badInput('The KMZ holds no KML document');
  return kmlDocument(strFromU8(docs[name]!), out);
}

/** GPX tracks, routes and waypoints as GeoJSON (tracks as lines, with their times), through @tmcw/togeojson. */
export async function gpxToGeoJson(input: string, out: string): Promise<number> {
  await assertWholeFileSize(input, 'GPX');
  const doc = parseXml(await readFile(input, 'utf8'), 'GPX');
  if (doc.documentElement.nodeName.toLowerCase() !== 'gpx') throw badInput('Could not read GPX: the document is not GPX (no <gpx> root)');
  return writeFeatureCollection(out, gpx(doc).features as Feature[]);
}
