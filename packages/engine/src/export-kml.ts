import type { Geometry, Position } from 'geojson';
import { exportAttributes, exportRowChunks, type AttributeKind, type AttributeValue } from './export-rows';
import type { ExportLocation } from './exports';
import type { PooledConnection } from './pool';

/**
 * A KML 2.2 download, streamed a chunk of Placemarks at a time (KML is WGS 84 longitude/latitude by definition:
 * its CRS needs no declaring). Attributes go in a typed <Schema> and each Placemark's <SchemaData>, as ogr2ogr
 * writes them, so GDAL and Google Earth read them back as fields; a `name` column also names the Placemark.
 */

const KML_TYPE: Record<AttributeKind, string> = { integer: 'int', real: 'double', boolean: 'bool', date: 'string', datetime: 'string', text: 'string' };

const escapeXml = (s: string) =>
  // Characters XML 1.0 cannot hold at all are dropped; the five it reserves escaped.
  s.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '').replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

const coords = (ps: Position[]) => `<coordinates>${ps.map((p) => `${p[0]},${p[1]}${p.length > 2 ? `,${p[2]}` : ''}`).join(' ')}</coordinates>`;

const polygon = (rings: Position[][]) =>
  `<Polygon><outerBoundaryIs><LinearRing>${coords(rings[0] ?? [])}</LinearRing></outerBoundaryIs>${rings
    .slice(1)
    .map((r) => `<innerBoundaryIs><LinearRing>${coords(r)}</LinearRing></innerBoundaryIs>`)
    .join('')}</Polygon>`;

export function kmlGeometry(g: Geometry): string {
  switch (g.type) {
    case 'Point':
      return `<Point>${coords([g.coordinates])}</Point>`;
    case 'LineString':
      return `<LineString>${coords(g.coordinates)}</LineString>`;
    case 'Polygon':
      return polygon(g.coordinates);
    case 'MultiPoint':
      return `<MultiGeometry>${g.coordinates.map((p) => `<Point>${coords([p])}</Point>`).join('')}</MultiGeometry>`;
    case 'MultiLineString':
      return `<MultiGeometry>${g.coordinates.map((l) => `<LineString>${coords(l)}</LineString>`).join('')}</MultiGeometry>`;
    case 'MultiPolygon':
      return `<MultiGeometry>${g.coordinates.map(polygon).join('')}</MultiGeometry>`;
    case 'GeometryCollection':
      return `<MultiGeometry>${g.geometries.map(kmlGeometry).join('')}</MultiGeometry>`;
  }
}

const text = (v: AttributeValue) => (typeof v === 'boolean' ? (v ? '1' : '0') : String(v));

/** The KML document of a dataset's rows, as UTF-8 bytes. */
export async function* kmlText(acquire: () => Promise<PooledConnection>, file: string, loc: ExportLocation, name: string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const attributes = await exportAttributes(acquire, file, loc);
  const nameAt = attributes.findIndex((a) => a.name.toLowerCase() === 'name');
  yield Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2">\n<Document id="root_doc">\n<name>${escapeXml(name)}</name>\n` +
      `<Schema name="${escapeXml(name)}" id="fields">\n${attributes.map((a) => `\t<SimpleField name="${escapeXml(a.name)}" type="${KML_TYPE[a.kind]}"></SimpleField>\n`).join('')}</Schema>\n<Folder><name>${escapeXml(name)}</name>\n`,
  );
  for await (const rows of exportRowChunks(acquire, file, loc, attributes, signal)) {
    let out = '';
    for (const row of rows) {
      const title = nameAt >= 0 && row.values[nameAt] !== null ? `<name>${escapeXml(text(row.values[nameAt]!))}</name>` : '';
      const data = attributes
        .map((a, i) => (row.values[i] === null || row.values[i] === undefined ? '' : `<SimpleData name="${escapeXml(a.name)}">${escapeXml(text(row.values[i]!))}</SimpleData>`))
        .join('');
      out += `<Placemark>${title}<ExtendedData><SchemaData schemaUrl="#fields">${data}</SchemaData></ExtendedData>${row.geometry ? kmlGeometry(row.geometry) : ''}</Placemark>\n`;
    }
    yield Buffer.from(out);
  }
  yield Buffer.from('</Folder>\n</Document>\n</kml>\n');
}
