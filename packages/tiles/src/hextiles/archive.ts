import fs from 'node:fs/promises';
import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { cellToParent, getResolution } from 'h3-js';
import { badInput, TilesetMetadata } from '@studio/schema';
import { PreparedSource } from './source';
import { quoteIdent } from '@studio/engine';
import { MISSING_METADATA, entryName, parseIndex, type TileCounts, type TileIndex, type TilesetMeta } from './layout';
import { checkedType, pathLiteral } from './sql';
import { ZipReader } from './zip';

/**
 * One tileset archive opened for reading: its index and metadata parsed, entries read on demand. Parquet
 * entries are copied out once into a cache folder (DuckDB reads files, not zip members); archives are
 * immutable (each build writes a new storage key), so a cached entry never goes stale.
 */
export class TileArchive {
  private constructor(
    readonly key: string,
    private readonly zip: ZipReader,
    readonly index: TileIndex,
    readonly meta: TilesetMeta,
    private readonly cacheDir: string,
  ) {}

  static async open(key: string, file: string, cacheRoot: string): Promise<TileArchive> {
    const zip = await ZipReader.open(file);
    const index = parseIndex(await readJson(zip, 'index.json', MISSING_METADATA));
    const meta = TilesetMetadata.safeParse(await readJson(zip, 'metadata.json', MISSING_METADATA));
    if (!meta.success) throw badInput(MISSING_METADATA, `metadata.json: ${meta.error.issues.map((i) => i.path.join('.')).join(', ')}`);
    const cacheDir = path.join(cacheRoot, createHash('sha256').update(key).digest('hex').slice(0, 32));
    return new TileArchive(key, zip, index, meta.data, cacheDir);
  }

  has(name: string): boolean {
    return this.zip.has(name);
  }

  read(name: string): Promise<Buffer | null> {
    return this.zip.read(name);
  }

  /** A deflated entry as gzip bytes, nothing compressed (ZipReader.readGzip); null when missing or stored. */
  readGzip(name: string): Promise<Buffer | null> {
    return this.zip.readGzip(name);
  }

  /** A local file holding entry `name` (copied out of the archive on first use). */
  async file(name: string): Promise<string> {
    const dest = path.join(this.cacheDir, name);
    if (!dest.startsWith(this.cacheDir + path.sep)) throw badInput(`Invalid archive entry name ${name}`);
    try {
      await fs.access(dest);
      return dest;
    } catch {
      // not cached yet
    }
    const data = await this.zip.read(name);
    if (!data) throw badInput(`The tileset archive has no entry ${name}`);
    await fs.mkdir(path.dirname(dest), { recursive: true });
    // Written aside then renamed: a concurrent reader sees the whole entry or none.
    const tmp = `${dest}.${randomUUID()}.tmp`;
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, dest);
    return dest;
  }

  /** Tile counts at zoom z: all time, or one time step. */
  counts(z: number, step?: string): Record<string, number> {
    if (!step) return this.index.tiles[z] ?? {};
    const interval = this.index.time[step[0]!];
    return interval?.[step]?.tiles[z] ?? {};
  }

  /** An empty relation with the tileset's columns, for a selection that touches no tile. */
  private emptySql(withTime: boolean): string {
    const cols = [`CAST(NULL AS VARCHAR) AS hex`, ...(withTime ? ['CAST(NULL AS TIMESTAMP) AS time'] : []), ...this.meta.fields.map((f) => `CAST(NULL AS ${checkedType(f.type)}) AS ${quoteIdent(f.name)}`)];
    return `(SELECT ${cols.join(', ')} WHERE false)`;
  }

  /**
   * Names of the entries holding cells at data resolution `res` in tiles touching `within` (any
   * resolution); every tile when `within` is absent; with `interval`, those of every step.
   */
  entriesFor(res: number, opts: { within?: readonly string[]; interval?: string }): string[] {
    const zs = res - this.meta.resolutionOffset;
    const pick = (counts: TileCounts): string[] => {
      const tiles = Object.keys(counts[zs] ?? {});
      if (!opts.within) return tiles;
      const keep = new Set<string>();
      const coarser = new Map<number, Set<string>>();
      for (const c of opts.within) {
        const rc = getResolution(c);
        if (rc >= zs) keep.add(cellToParent(c, zs));
        else {
          if (!coarser.has(rc)) coarser.set(rc, new Set());
          coarser.get(rc)!.add(c);
        }
      }
      return tiles.filter((t) => keep.has(t) || [...coarser].some(([rc, set]) => set.has(cellToParent(t, rc))));
    };
    if (!opts.interval) return pick(this.index.tiles).map((tile) => entryName({ z: zs, tile }));
    return Object.entries(this.index.time[opts.interval] ?? {}).flatMap(([step, s]) => pick(s.tiles).map((tile) => entryName({ z: zs, tile, time: step })));
  }

  /**
   * A TileSource for the compiler. Compiling is synchronous and files are not: the caller compiles once
   * with `recording` on (every cells/quantiles request is noted and answered with a placeholder),
   * awaits prepare() (entries copied out, quantiles read), then compiles for real.
   */
  source(): PreparedSource {
    return new PreparedSource(this);
  }

  /** Relation over local entry files, or an empty one with the tileset's columns. */
  relation(files: string[], withTime: boolean): string {
    return files.length ? `read_parquet([${files.map(pathLiteral).join(', ')}])` : this.emptySql(withTime);
  }

  /** The quantiles entry of a resolution (and time step); null when it is missing or unreadable. */
  async quantiles(res: number, step?: string): Promise<Record<string, number[] | null> | null> {
    try {
      const raw = await this.zip.read(step ? `quantiles/${res}/${step}.json` : `quantiles/${res}.json`);
      if (!raw) return null;
      const parsed = JSON.parse(raw.toString('utf8')) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
      return parsed as Record<string, number[] | null>;
    } catch {
      return null;
    }
  }
}

async function readJson(zip: ZipReader, name: string, missing: string): Promise<unknown> {
  const raw = await zip.read(name);
  if (!raw) throw badInput(missing, `the archive has no ${name}`);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw badInput(missing, `${name} is not JSON`);
  }
}
