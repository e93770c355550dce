import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { gpx, kmlWithFolders } from '@tmcw/togeojson';
import type { Feature } from 'geojson';
import { badInput } from '@studio/schema';
import { writeFeatureCollection } from './geojson-file';
import { WHOLE_FILE_MAX_BYTES, assertWholeFileSize } from './whole-file';
import { readZipEntries } from './zip-bounds';

type Root = ReturnType<typeof kmlWithFolders>;
type Child = Root['children'][number];

/**
 * The parser quotes the text it choked on: from a binary file that is control bytes (a NUL the catalog cannot
 * store in the dataset's error) and kilobytes of noise. Kept to 200 printable characters.
 */
const printable = (text: string) => {
  const clean = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffd]/g, '');
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
};

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
  if (problem || !doc?.documentElement) throw badInput(`Could not read ${label}: ${printable(String(problem ?? 'no document').split('\n')[0]!)}`);
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

/** The name a KML "layer" has for the features outside every folder (a folder's path never starts with a parenthesis). */
export const KML_NO_FOLDER = '(no folder)';

const folderOf = (f: Feature | Feature<null>) => (typeof f.properties?.folder === 'string' ? f.properties.folder : KML_NO_FOLDER);

function kmlRoot(source: string | Document): Root {
  const doc = typeof source === 'string' ? parseXml(source, 'KML') : source;
  if (doc.documentElement.nodeName.toLowerCase() !== 'kml') throw badInput('Could not read KML: the document is not KML (no <kml> root)');
  return kmlWithFolders(doc);
}

/**
 * The KML's features as GeoJSON: all of them with their `folder` column, or with `layer` only the features of that
 * folder (its path, "Parks / North", as the folder column writes it; KML_NO_FOLDER for those outside every folder).
 */
function kmlDocument(source: string | Document, out: string, layer?: string): Promise<number> {
  const root = kmlRoot(source);
  if (layer === undefined) return writeFeatureCollection(out, kmlFeatures(root, []));
  const folders = kmlFolders(root);
  if (!folders.includes(layer)) throw badInput(`Could not read the KML: it has no folder '${layer}'; its folders are ${folders.map((f) => `'${f}'`).join(', ') || 'none'}`);
  return writeFeatureCollection(out, (function* () {
    for (const f of kmlFeatures(root, [])) if (folderOf(f) === layer) yield f;
  })());
}

/** The folders holding features, as their paths, in document order. */
function kmlFolders(root: Root): string[] {
  const seen = new Set<string>();
  for (const f of kmlFeatures(root, [])) seen.add(folderOf(f));
  return [...seen];
}

/**
 * KMZ: the zip's main .kml document (doc.kml by convention), read within bounds (zip-bounds.ts), with the documents
 * it links inside the archive in place of their links: GDAL (LIBKML) writes a KMZ as a doc.kml of NetworkLinks to
 * `layers/<layer>.kml`, one a layer, and Google Earth reads it so. Each linked document becomes a folder named by
 * its <name> (else its file name), so every layer is a folder the layers call makes a dataset of.
 */
async function kmzDocument(input: string): Promise<Document> {
  const docs = await readZipEntries(await readFile(input), (name) => /\.kml$/i.test(name), 'the KMZ', WHOLE_FILE_MAX_BYTES);
  const main = [...docs.keys()].sort((a, b) => Number(b.endsWith('doc.kml')) - Number(a.endsWith('doc.kml')))[0];
  if (!main) throw badInput('The KMZ holds no KML document');
  const text = (name: string) => new TextDecoder().decode(docs.get(name)!);
  const doc = parseXml(text(main), 'KML');
  const base = path.posix.dirname(main);
  // Only links from the main document: a linked document's own links stay links (no cycles to follow).
  for (const link of Array.from(doc.getElementsByTagName('NetworkLink'))) {
    const href = (link.getElementsByTagName('href')[0]?.textContent ?? '').trim();
    const target = path.posix.normalize(path.posix.join(base, href));
    if (!href || /^[a-z][\w+.-]*:/i.test(href) || target === main || !docs.has(target)) continue;
    const linked = parseXml(text(target), `the KMZ's ${target}`);
    const body = linked.getElementsByTagName('Document')[0] ?? linked.documentElement;
    const title = Array.from(body.childNodes).find((n) => n.nodeName === 'name')?.textContent?.trim() || path.posix.basename(target, path.posix.extname(target));
    const folder = doc.createElement('Folder');
    const name = doc.createElement('name');
    name.appendChild(doc.createTextNode(title));
    folder.appendChild(name);
    for (const child of Array.from(body.childNodes)) if (child.nodeName !== 'name') folder.appendChild(doc.importNode(child, true));
    link.parentNode!.replaceChild(folder, link);
  }
  return doc;
}

/** KML (folders kept as a `folder` column, or one folder with `layer`) as GeoJSON, through @tmcw/togeojson. */
export async function kmlToGeoJson(input: string, out: string, layer?: string): Promise<number> {
  await assertWholeFileSize(input, 'KML');
  return kmlDocument(await readFile(input, 'utf8'), out, layer);
}

export async function kmzToGeoJson(input: string, out: string, layer?: string): Promise<number> {
  await assertWholeFileSize(input, 'KMZ');
  return kmlDocument(await kmzDocument(input), out, layer);
}

/** The folders of a KML or KMZ file that hold features (the multi-layer upload makes one dataset each). */
export async function kmlFileFolders(input: string, zipped: boolean): Promise<string[]> {
  await assertWholeFileSize(input, zipped ? 'KMZ' : 'KML');
  return kmlFolders(kmlRoot(zipped ? await kmzDocument(input) : await readFile(input, 'utf8')));
}

/** GPX tracks, routes and waypoints as GeoJSON (tracks as lines, with their times), through @tmcw/togeojson. */
export async function gpxToGeoJson(input: string, out: string): Promise<number> {
  await assertWholeFileSize(input, 'GPX');
  const doc = parseXml(await readFile(input, 'utf8'), 'GPX');
  if (doc.documentElement.nodeName.toLowerCase() !== 'gpx') throw badInput('Could not read GPX: the document is not GPX (no <gpx> root)');
  return writeFeatureCollection(out, gpx(doc).features as Feature[]);
}
