/**
 * Upload -> Parquet in one DuckDB COPY, then one aggregate query over the Parquet output for stats, and a
 * small sample for role detection. No per-row JavaScript.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { REPROJECT_FUNCTION, toLngLatOf } from './formats/reproject';
import { badInput, isStudioError } from '@studio/schema';
import { detectRoles } from './detect';
import { CSV_BUFFER, collectRejected, csvSelect, rejectedLinesKey, type CsvOverrides, type RejectTables } from './csv';
import { fileHead } from './file-head';
import { geometryProblemSql } from './geojson-check';
import { anyRepairs, repairGeometryParquet } from './geometry-repair';
import { assertJsonDepth } from './json-depth';
import { assertListDepth, LIST_MAX_DEPTH } from './list-depth';
import { gunzipBounded } from './decompression-bounds';
import { CONVERTED_CONTENT_TYPES, convertUpload, type ConvertedFormat, type Converter } from './formats';
import type { PooledConnection } from './pool';
import { quoteIdent, quoteLiteral } from './sql';
import { parseCopyStats, statsOf, type CopyStats } from './stats';
import { checkKey, removeQuietly, type ObjectStore } from './store';
import type { IngestResult } from './types';

export interface IngestOptions {
  sourceFile: string;
  contentType: string;
  contentEncoding?: 'gzip';
  /** The most bytes the body may hold once decompressed (default UPLOAD_MAX_BYTES, 20 GB): past it, 413. */
  maxBytes?: number;
  key: string;
  /**
   * Fraction done, 0..1, never decreasing: 0.05 after the body is ready (gunzipped), then DuckDB's own query
   * progress of the COPY mapped onto 0.05..0.8 (polled every 100 ms), 0.9 after stats, 1.0 when stored.
   */
  onProgress?: (fraction: number) => void;
  /**
   * CSV and TSV: leave malformed lines out (and count them) instead of refusing the file. Off by default:
   * a file is read whole or not at all unless the user asks.
   */
  skipBadRows?: boolean;
  /** CSV and TSV: what the user set instead of what is detected (delimiter, header, encoding, column types). */
  csv?: CsvOverrides;
}

/** What DuckDB reads: the upload itself, or (`sheet`) the CSV an Excel sheet was turned into. */
type Format = 'csv' | 'tsv' | 'json' | 'geojson' | 'geojsonseq' | 'parquet' | 'sheet';

const FORMATS: Record<string, Format | 'sniff'> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/tab-separated-values': 'tsv',
  'application/json': 'json',
  'application/x-ndjson': 'json',
  'application/ndjson': 'json',
  'application/geo+json': 'geojson',
  // RFC 8142 text sequences (read as newline-delimited once their record separators are dropped).
  'application/geo+json-seq': 'json',
  'application/json-seq': 'json',
  'application/vnd.apache.parquet': 'parquet',
  'application/x-parquet': 'parquet',
  'application/octet-stream': 'sniff',
};

const CONVERTERS_BY_FORMAT = new Set<string>(Object.values(CONVERTED_CONTENT_TYPES));

/**
 * Throws 422 'Unsupported content type' for a type ingest never accepts, so a server can refuse before
 * streaming the body to disk (application/octet-stream passes here; ingest still checks its Parquet magic).
 */
export function assertSupportedContentType(contentType: string): void {
  formatOf(contentType);
}

export function formatOf(contentType: string): Format | 'sniff' | ConvertedFormat {
  const base = contentType.split(';')[0]!.trim().toLowerCase();
  const f = FORMATS[base] ?? CONVERTED_CONTENT_TYPES[base];
  if (!f) throw badInput('Unsupported content type');
  return f;
}

const hasParquetMagic = async (file: string): Promise<boolean> => (await fileHead(file, 4)).toString('latin1') === 'PAR1';

/**
 * Which GeoJSON a JSON upload holds, if any: a FeatureCollection (browsers label .geojson files
 * application/json), or newline-delimited GeoJSON (one Feature a line, as `ogr2ogr -f GeoJSONSeq` and
 * BigQuery exports write it; an RFC 8142 text sequence once its separators are dropped).
 */
async function geojsonKindOf(file: string): Promise<GeoJsonKind | null> {
  const head = (await fileHead(file, 65536)).toString('utf8');
  if (/^\s*\{/.test(head.slice(0, 4096)) && /"type"\s*:\s*"FeatureCollection"/.test(head.slice(0, 4096))) return 'collection';
  const firstLine = head.trimStart().split('\n')[0]!;
  try {
    const o = JSON.parse(firstLine) as { type?: unknown };
    return o && o.type === 'Feature' ? 'sequence' : null;
  } catch {
    return null;
  }
}

/** An RFC 8142 JSON text sequence (`application/json-seq`, `ogr2ogr -lco RS=YES`): each record after a 0x1E. */
const isTextSequence = async (file: string): Promise<boolean> => (await fileHead(file, 4096)).toString('utf8').trimStart().startsWith('\x1e');

/**
 * An RFC 8142 text sequence as newline-delimited JSON, for DuckDB's reader: the record separators dropped.
 * JSON escapes every control character inside strings, so a raw 0x1E byte is always a separator.
 */
async function withoutRecordSeparators(src: string, dest: string): Promise<void> {
  const drop = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      done(null, chunk.includes(0x1e) ? chunk.filter((b) => b !== 0x1e) : chunk);
    },
  });
  await pipeline(createReadStream(src), drop, createWriteStream(dest));
}

type GeoJsonKind = 'collection' | 'sequence';

/**
 * How deep read_json gives values types (deeper values stay JSON text): the Parquet written from them is read back
 * in time exponential in nested lists (list-depth.ts), so JSON within the 64-level limit could still stall a
 * connection for hours. 16 levels read in 0.02 s.
 */
const TYPED_DEPTH = `maximum_depth = ${LIST_MAX_DEPTH}`;

/** The SELECT reading the upload (or the Parquet parts it was converted into), by format. Paths are engine-made. */
async function sourceSelect(conn: DuckDBConnection, format: Format, files: string[], rejects?: RejectTables, csv?: CsvOverrides): Promise<string> {
  const file = files[0]!;
  const f = quoteLiteral(file);
  switch (format) {
    case 'csv':
      return csvSelect(conn, file, null, rejects, csv);
    case 'tsv':
      return csvSelect(conn, file, '\t', rejects, csv);
    case 'sheet':
      // Written by formats/xlsx.ts: a header row, then rows as wide as their last filled cell.
      return `SELECT * FROM read_csv(${f}, header = true, null_padding = true, ${CSV_BUFFER})`;
    case 'json': {
      // DuckDB reserves twice the maximum object size as a buffer: size it to the file (records are
      // smaller than the file), so small uploads fit a small memory limit and large ones still parse.
      const { size } = await stat(file);
      const maxObject = Math.min(268435456, Math.max(16 * 1024 * 1024, size + 1024));
      return `SELECT * FROM read_json(${f}, format = 'auto', maximum_object_size = ${maxObject}, ${TYPED_DEPTH})`;
    }
    case 'parquet':
      return geoparquetSelect(conn, `read_parquet([${files.map(quoteLiteral).join(', ')}])`, files);
    case 'geojson':
    case 'geojsonseq':
      return geojsonSelect(conn, f, (await stat(file)).size, format === 'geojson' ? 'collection' : 'sequence');
  }
}

/** Coordinate reference systems a GeoParquet column may be in and be read as longitude/latitude. */
const LONGITUDE_LATITUDE_CRS = /^(OGC:CRS84|EPSG:4326|CRS84|OGC:CRS84h|EPSG:4979)$/i;

/**
 * A column's CRS as DuckDB reports it — an identifier ("OGC:CRS84") or GeoParquet's PROJJSON — as its
 * authority:code and a label to name it by; null when the column states none (longitude/latitude then).
 */
function crsName(value: unknown): { id: string; label: string } | null {
  if (value === null || value === undefined || value === '') return null;
  const text = String(value);
  if (!text.trimStart().startsWith('{')) return { id: text, label: text };
  try {
    const j = JSON.parse(text) as { name?: string; id?: { authority?: string; code?: string | number } };
    const id = j.id?.authority ? `${j.id.authority}:${j.id.code}` : (j.name ?? 'an unnamed CRS');
    return { id, label: j.name && j.id?.authority ? `${j.name} (${id})` : id };
  } catch {
    return { id: text, label: 'a CRS that cannot be read' };
  }
}

/**
 * Parquet, and GeoParquet: DuckDB reads a column its `geo` metadata names as GEOMETRY (WKB in the file).
 * The studio keeps geometry as text every reader here parses (WKT), so GEOMETRY columns are written as
 * WKT; the primary one also gives Points a latitude and longitude, as GeoJSON uploads do. A column in a
 * projected CRS is transformed to longitude/latitude (formats/reproject.ts: a whole PROJJSON, or WGS 84 / UTM and
 * Web Mercator by their EPSG codes); one the studio has no transform for is refused by name.
 */
async function geoparquetSelect(conn: DuckDBConnection, read: string, files: string[]): Promise<string> {
  // GeoParquet 1.1's covering columns (a bbox struct per geometry) are derived from the geometry: not kept as data.
  const covering = await coveringColumns(conn, files);
  const described = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${read}`)).getRowObjectsJS().filter((c) => !covering.has(String(c.column_name)));
  assertListDepth(described.map((c) => ({ name: String(c.column_name), type: String(c.column_type) })), 'Parquet');
  const geometries = described.filter((c) => String(c.column_type).startsWith('GEOMETRY')).map((c) => String(c.column_name));
  if (!geometries.length) return covering.size ? `SELECT ${described.map((c) => quoteIdent(String(c.column_name))).join(', ')} FROM ${read}` : `SELECT * FROM ${read}`;
  const crs = await conn.runAndReadAll(`SELECT ${geometries.map((g, i) => `ST_CRS(${quoteIdent(g)}) AS c${i}`).join(', ')} FROM ${read} LIMIT 1`);
  const [row] = crs.getRowObjectsJS();
  // Each geometry column's WKT in longitude/latitude: as it is, or through proj4 from the CRS the file states.
  const wktOf = new Map<string, string>();
  geometries.forEach((g, i) => {
    const raw = row?.[`c${i}`];
    const crs = crsName(raw);
    const text = `ST_AsText(${quoteIdent(g)})`;
    if (!crs || LONGITUDE_LATITUDE_CRS.test(crs.id)) return wktOf.set(g, text);
    if (!toLngLatOf(String(raw))) {
      throw badInput(`Could not read GeoParquet: column '${g}' is in ${crs.label}, not longitude/latitude (EPSG:4326), and the studio has no transform from it; reproject it before uploading`);
    }
    wktOf.set(g, `${REPROJECT_FUNCTION}(${text}, ${quoteLiteral(String(raw))})`);
  });
  const taken = new Set(described.map((c) => String(c.column_name).toLowerCase()));
  const cols = described.map((c) => {
    const name = quoteIdent(String(c.column_name));
    return geometries.includes(String(c.column_name)) ? `${wktOf.get(String(c.column_name))} AS ${name}` : name;
  });
  if (!taken.has('latitude') && !taken.has('longitude')) {
    const wkt = wktOf.get(geometries[0]!)!;
    const point = (i: number) => `TRY_CAST(regexp_extract(${wkt}, '^POINT \\((\\S+) (\\S+)\\)$', ${i}) AS DOUBLE)`;
    cols.push(`${point(2)} AS latitude`, `${point(1)} AS longitude`);
  }
  return `SELECT ${cols.join(', ')} FROM ${read}`;
}

/** The columns the files' GeoParquet `geo` metadata names as a geometry's bbox covering (none without it). */
async function coveringColumns(conn: DuckDBConnection, files: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const kv = await conn.runAndReadAll(`SELECT decode(value) AS v FROM parquet_kv_metadata([${files.map(quoteLiteral).join(', ')}]) WHERE decode(key) = 'geo'`);
  for (const r of kv.getRowObjectsJS()) {
    try {
      const geo = JSON.parse(String(r.v)) as { columns?: Record<string, { covering?: { bbox?: { xmin?: unknown } } }> };
      for (const c of Object.values(geo.columns ?? {})) {
        const xmin = c.covering?.bbox?.xmin;
        if (Array.isArray(xmin) && typeof xmin[0] === 'string') out.add(xmin[0]);
      }
    } catch {
      // metadata that is not JSON names no covering: DuckDB's reader says what it makes of the rest
    }
  }
  return out;
}

/**
 * GeoJSON, a FeatureCollection or one Feature a line: properties become columns, geometry stays GeoJSON text in `_geojson`, and Points
 * also get latitude/longitude. Geometry is read as JSON (auto-detection would coerce mixed coordinate
 * shapes to strings); properties keep DuckDB's inferred struct type, found by a first DESCRIBE.
 */
async function geojsonSelect(conn: DuckDBConnection, f: string, bytes: number, kind: GeoJsonKind): Promise<string> {
  // A FeatureCollection is one JSON object: the maximum object size must cover the file, no more (DuckDB
  // reserves twice it as a buffer). A sequence's objects are its lines, each smaller than the file.
  const size = `maximum_object_size = ${Math.min(2 ** 31 - 1, Math.max(16 * 1024 * 1024, bytes + 1024))}, ${TYPED_DEPTH}`;
  const read = kind === 'collection' ? `read_json(${f}, ${size})` : `read_json(${f}, ${size}, format = 'newline_delimited')`;
  let propsType: string | null = null;
  try {
    const r = await conn.runAndReadAll(`DESCRIBE SELECT ${kind === 'collection' ? 'features[1].properties' : 'properties'} AS p FROM ${read}`);
    propsType = String(r.getRowObjectsJS()[0]?.column_type ?? '');
  } catch (e) {
    throw badInput('Could not read GeoJSON: expected a FeatureCollection with a "features" array', withoutPaths(firstLine(e)));
  }
  const structProps = propsType.startsWith('STRUCT(');
  const propsOf = structProps ? propsType : 'JSON';
  // Each feature as `f` (its properties and geometry) with its number from 1 as `i`.
  const features =
    kind === 'collection'
      ? `SELECT unnest(features) AS f, generate_subscripts(features, 1) AS i FROM read_json(${f}, ${size},
          columns = {'type': 'VARCHAR', 'features': ${quoteLiteral(`STRUCT(properties ${propsOf}, geometry JSON)[]`)}})`
      : `SELECT {'properties': properties, 'geometry': geometry} AS f, row_number() OVER () AS i FROM read_json(${f}, ${size},
          format = 'newline_delimited', columns = {'type': 'VARCHAR', 'properties': ${quoteLiteral(propsOf)}, 'geometry': 'JSON'})`;
  const from = `FROM (${features})`;
  // The first feature whose geometry cannot be read stops the upload, named by its number (from 1).
  const bad = await conn.runAndReadAll(`SELECT i, problem FROM (SELECT i, ${geometryProblemSql('f.geometry')} AS problem ${from})
    WHERE problem IS NOT NULL ORDER BY i LIMIT 1`);
  const [first] = bad.getRowObjectsJS();
  if (first) throw badInput(`Could not read GeoJSON: feature ${Number(first.i)} has an invalid geometry: ${String(first.problem)}`);
  // Property names, to keep derived columns from colliding with them (binding only: the types are given).
  const taken = new Set<string>();
  if (structProps) {
    const d = await conn.runAndReadAll(`DESCRIBE SELECT unnest(f.properties) ${from}`);
    for (const r of d.getRowObjectsJS()) taken.add(String(r.column_name).toLowerCase());
  }
  const g = `f.geometry`;
  const point = `json_extract_string(${g}, '$.type') = 'Point'`;
  const cols = structProps ? ['unnest(f.properties)'] : [];
  if (!taken.has('_geojson')) cols.push(`CAST(${g} AS VARCHAR) AS _geojson`);
  if (!taken.has('latitude') && !taken.has('longitude')) {
    cols.push(`CASE WHEN ${point} THEN TRY_CAST(json_extract(${g}, '$.coordinates[1]') AS DOUBLE) END AS latitude`);
    cols.push(`CASE WHEN ${point} THEN TRY_CAST(json_extract(${g}, '$.coordinates[0]') AS DOUBLE) END AS longitude`);
  }
  return `SELECT ${cols.join(', ')} ${from}`;
}

const firstLine = (e: unknown) => String((e as Error)?.message ?? e).split('\n')[0]!;

/**
 * A reader's message without the server's file paths (DuckDB names the file it read): answers go to
 * users, and where the studio keeps its files is none of theirs.
 */
export function withoutPaths(message: string, file?: string): string {
  const named = file ? message.replaceAll(file, 'the file') : message;
  // A quoted path, then a bare one: after a space, or after a quote or parenthesis where DuckDB cut the quoted
  // SQL it shows ("read_json('/tmp/…/uploads/9f…") and the closing quote never comes.
  return named.replace(/(["'])\/[^"'\n]*\1/g, 'the file').replace(/(^|[\s('"])\/(?:[\w.-]+\/)+[\w.-]*/g, '$1the file');
}

/** DuckDB's reader errors -> a message saying what and where. */
export function readError(format: Format, e: unknown, file?: string): Error {
  if (isStudioError(e)) return e;
  const msg = withoutPaths(String((e as Error)?.message ?? e), file);
  const label = { tsv: 'TSV', geojson: 'GeoJSON', geojsonseq: 'newline-delimited GeoJSON', sheet: 'the Excel sheet', parquet: 'Parquet' }[format as string] ?? format.toUpperCase();
  const line = /Error on Line:\s*(\d+)/i.exec(msg)?.[1];
  const conv = /converting column "([^"]+)"\. Could not convert string "(.*?)" to '([^']+)'/s.exec(msg);
  if (line && conv) {
    return badInput(
      `Could not read ${label} at line ${line}, column '${conv[1]}': expected ${conv[3]} but found '${conv[2]}'`,
      msg,
    );
  }
  const cols = /Expected Number of Columns:\s*(\d+)\s*Found:\s*(\d+)/i.exec(msg);
  if (line && cols) {
    return badInput(`Could not read ${label} at line ${line}: expected ${cols[1]} columns but found ${cols[2]}`, msg);
  }
  if (line && /unterminated quote/i.test(msg)) {
    return badInput(`Could not read ${label} at line ${line}: a quoted value is never closed (unterminated quote)`, msg);
  }
  if (line) {
    const why = msg.split('\n').find((l, i) => i > 0 && l.trim() && !l.startsWith('Original Line')) ?? firstLine(e);
    return badInput(`Could not read ${label} at line ${line}: ${why.trim()}`, msg);
  }
  return badInput(`Could not read ${label}: ${msg.split('\n')[0]!.replace(/^[A-Za-z ]+Error:\s*/, '')}`, msg);
}

/** Polls DuckDB's query progress while `work` runs. */
async function withProgress<T>(conn: DuckDBConnection, report: (pct: number) => void, work: Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    const p = conn.progress.percentage;
    if (p >= 0) report(p);
  }, 100);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

export async function ingest(
  /** A connection for copying an input of this many bytes (the engine picks the DuckDB instance by size). */
  acquire: (inputBytes: number) => Promise<PooledConnection>,
  store: ObjectStore,
  tmpDir: string,
  opts: IngestOptions,
  /** Where files DuckDB cannot read are turned into ones it can (the server: a worker process; default: here). */
  convert: Converter = convertUpload,
): Promise<IngestResult> {
  let format = formatOf(opts.contentType);
  checkKey(opts.key); // before the work, not at the final put
  const progress = (() => {
    let last = 0;
    return (f: number) => {
      if (f > last) {
        last = f;
        opts.onProgress?.(f);
      }
    };
  })();
  const id = randomUUID();
  const temps: string[] = [];
  const out = path.join(tmpDir, `ingest-${id}.parquet`);
  temps.push(out);
  try {
    let input = opts.sourceFile;
    if (opts.contentEncoding === 'gzip') {
      input = path.join(tmpDir, `ingest-${id}.body`);
      temps.push(input);
      await gunzipBounded(opts.sourceFile, input, opts.maxBytes);
    }
    const inputBytes = (await stat(input)).size;
    if (inputBytes === 0) throw badInput('The file is empty');
    if (format === 'sniff') {
      if (!(await hasParquetMagic(input))) throw badInput('Unsupported content type');
      format = 'parquet';
    }
    // Before DuckDB's read_json or JSON.parse (geojsonKindOf) sees the file: read_json's structure inference
    // recurses natively and 50,000 levels crash the whole process. Converted files are written by us, flat.
    if (format === 'json' || format === 'geojson') await assertJsonDepth(input);
    let files = [input];
    if (CONVERTERS_BY_FORMAT.has(format)) {
      const converted = await convert(format as ConvertedFormat, input, path.join(tmpDir, `ingest-${id}.converted`), opts.csv?.layer === undefined ? undefined : { layer: opts.csv.layer });
      temps.push(...converted.files);
      files = converted.files;
      format = converted.into;
    }
    if (format === 'json') {
      if (await isTextSequence(input)) {
        const plain = path.join(tmpDir, `ingest-${id}.ndjson`);
        temps.push(plain);
        await withoutRecordSeparators(input, plain);
        files = [plain];
      }
      const kind = await geojsonKindOf(files[0]!);
      if (kind) format = kind === 'collection' ? 'geojson' : 'geojsonseq';
    }
    const fmt = format as Format;
    progress(0.05);
    let copyStats: CopyStats;
    let rejectedRows: number | undefined;
    // LZ4 rather than DuckDB's default Snappy: the same size on the bench data, and a one-thread copy of a
    // 0.8 GB CSV took 16% less time (9.6 vs 11.4 s, interleaved runs); every reader of the file is DuckDB.
    // Parquet format version 2 (its delta and byte-stream-split encodings): the bench's 10M-row CSV became a
    // 166 MB file instead of 335 MB, written in 3.15 s instead of 3.44 s (medians of five interleaved runs) and
    // aggregated in 0.165 s instead of 0.229 s.
    const pooled = await acquire(inputBytes);
    try {
      const conn = pooled.connection;
      const suffix = id.replaceAll('-', '');
      const rejects = opts.skipBadRows && (fmt === 'csv' || fmt === 'tsv') ? { errors: `rejects_${suffix}`, scans: `reject_scans_${suffix}` } : undefined;
      try {
        const select = await sourceSelect(conn, fmt, files, rejects, opts.csv);
        const written = await withProgress(
          conn,
          (pct) => progress(0.05 + (0.75 * pct) / 100),
          conn.runAndReadAll(`COPY (${select}) TO ${quoteLiteral(out)} (FORMAT parquet, COMPRESSION lz4_raw, PARQUET_VERSION V2, RETURN_STATS true)`),
        );
        copyStats = parseCopyStats(written.getRowObjectsJS());
        if (rejects) {
          const lines = path.join(tmpDir, `ingest-${id}.rejected.csv`);
          temps.push(lines);
          rejectedRows = await collectRejected(conn, rejects, lines);
          if (rejectedRows > 0) await store.put(rejectedLinesKey(opts.key), lines);
        }
      } catch (e) {
        throw readError(fmt, e, files[0]);
      }
    } finally {
      pooled.release();
    }
    progress(0.8);
    // Statistics read the Parquet output, which holds little state whatever its size: any connection will do.
    const statsConn = await acquire(0);
    try {
      const { rowCount, columns, sample } = await statsOf(statsConn.connection, out, copyStats);
      const detected = detectRoles(columns, sample);
      // Geometry drawn where it is, whatever the format: the detected geometry column normalised in one more pass
      // over the Parquet written (geometry-repair.ts), kept as written when nothing needed repair.
      const repairedFile = path.join(tmpDir, `ingest-${id}.repaired.parquet`);
      temps.push(repairedFile);
      const geometry = columns.find((c) => c.name === detected.geometry && /^VARCHAR/i.test(c.duckdbType));
      const geometryRepairs = geometry ? await repairGeometryParquet(statsConn.connection, out, repairedFile, geometry.name) : undefined;
      const stored = geometryRepairs?.repaired ? repairedFile : out;
      progress(0.9);
      const byteSize = (await stat(stored)).size;
      await store.put(opts.key, stored);
      progress(1);
      return {
        rowCount,
        byteSize,
        columns,
        detected,
        ...(rejectedRows !== undefined && { rejectedRows }),
        ...(geometryRepairs && anyRepairs(geometryRepairs) && { geometryRepairs }),
      };
    } finally {
      statsConn.release();
    }
  } finally {
    await Promise.all(temps.map(removeQuietly));
  }
}
