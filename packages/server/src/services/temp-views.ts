import path from 'node:path';
import { mkdir, rm } from 'node:fs/promises';
import { StudioError, notFound, bestEffort, type TempViewWire } from '@studio/schema';
import { TEMP_VIEW_SQL_LIMIT, TEMP_VIEW_TTL_SECONDS, tempViewName } from '@studio/pipeline';
import { quoteLiteral, type Engine, type ExportLocation, type ExportShape } from '@studio/engine';

interface TempView {
  name: string;
  ownerId: string;
  file: string;
  /** Rows written (the views never change). */
  rowCount: number;
  expiresAt: number;
  timer: NodeJS.Timeout;
}

export const TEMP_VIEW_NAME = /^temp_[a-z0-9]{6}$/;

/** A temporary view as its maker sees it; with a preview, its first rows and their DuckDB types. */
export type TempViewInfo = Omit<TempViewWire, 'engine'>;

/** Most rows a view's creation answers with (a workbook cell's grid). */
export const TEMP_VIEW_PREVIEW_MAX = 1000;

/**
 * Temporary materialized views (catalog §9): a result kept for TEMP_VIEW_TTL_SECONDS (60 s) under a
 * `temp_` + 6-character name, at most TEMP_VIEW_SQL_LIMIT (100) alive at once, readable only by whoever
 * made it. Later pipelines name it as a dataset uuid, and user SQL (a workbook's SQL cells) names it as a
 * table, so a chain of steps reuses one expensive result without recomputing it.
 *
 * Each view is a Parquet file in the engine's temp folder rather than a DuckDB table: the SQL sandbox runs
 * user SQL on instances that can read only the files it is handed (sql-sandbox/locked-instances.ts), so a
 * view must be a file for SQL to read it at all. The folder is emptied at start: views do not outlive
 * the process that made them.
 */
export class TempViews {
  private readonly views = new Map<string, TempView>();
  private folderReady: Promise<unknown> | null = null;
  private readonly dir: string;

  constructor(
    private readonly engine: Engine,
    /** Views one user may keep alive at once (STUDIO_TEMP_VIEWS_PER_USER): one user cannot use up everyone's TEMP_VIEW_SQL_LIMIT. */
    private readonly perUser = 20,
  ) {
    this.dir = path.join(engine.tmpDir, 'temp-views');
  }

  private ensureFolder(): Promise<unknown> {
    this.folderReady ??= rm(this.dir, { recursive: true, force: true }).then(() => mkdir(this.dir, { recursive: true }));
    return this.folderReady;
  }

  get size(): number {
    return this.views.size;
  }

  /** Materializes compiled engine SQL (a pipeline) as a new view of `ownerId`, answering its first `preview` rows. */
  create(ownerId: string, compiled: { sql: string; params: unknown[] }, preview = 0, replaces?: string): Promise<TempViewInfo> {
    return this.createWith(
      ownerId,
      async (file) => {
        // COPY answers the rows it wrote: no second read for the count. Uncompressed: a view lives 60 s, and
        // compressing a workbook step's 800k rows cost it 3-6% of a six-step run (the bench's first-run ratio
        // 1.22-1.23 compressed, 1.16-1.19 not, on an idle machine).
        // The sandbox's copies (SQL cells) keep DuckDB's default.
        const written = await this.engine.query(`COPY (${compiled.sql}) TO ${quoteLiteral(file)} (FORMAT parquet, COMPRESSION uncompressed)`, compiled.params);
        return Number(Object.values(written[0] ?? {})[0] ?? 0);
      },
      preview,
      replaces,
    );
  }

  /**
   * Materializes whatever `write` puts at `file` (a Parquet file; it answers the rows it wrote) as a new
   * view of `ownerId`: the SQL sandbox's copy of a user query, a warehouse's rows. A failed write leaves
   * no view. With `preview`, the answer holds the view's first rows (at most TEMP_VIEW_PREVIEW_MAX).
   *
   * `replaces` names a view of the same owner that the new one supersedes (a workbook cell run again): it does not
   * count against the limits, and it is dropped once the new view is written (kept when the write fails, so the
   * cell still has its last result). Without it, a workbook of 20 cells run twice within 60 s met the per-user
   * limit with half of its views already unused. A name that is not a live view of the owner is ignored.
   */
  async createWith(ownerId: string, write: (file: string) => Promise<number>, preview = 0, replaces?: string): Promise<TempViewInfo> {
    const superseded = replaces !== undefined && this.isLiveViewOf(ownerId, replaces) ? replaces : undefined;
    const freed = superseded ? 1 : 0;
    if (this.views.size - freed >= TEMP_VIEW_SQL_LIMIT) {
      throw new StudioError(429, `Too many temporary views (at most ${TEMP_VIEW_SQL_LIMIT}); they expire ${TEMP_VIEW_TTL_SECONDS} s after creation`);
    }
    if (this.liveViewsOf(ownerId) - freed >= this.perUser) {
      throw new StudioError(429, `Too many temporary views of yours (at most ${this.perUser} at once); they expire ${TEMP_VIEW_TTL_SECONDS} s after creation`);
    }
    let name = tempViewName();
    while (this.views.has(name)) name = tempViewName();
    // Reserve the slot before the work so concurrent creations respect the limit.
    const file = path.join(this.dir, `${name}.parquet`);
    const view: TempView = { name, ownerId, file, rowCount: 0, expiresAt: Date.now() + TEMP_VIEW_TTL_SECONDS * 1000, timer: setTimeout(() => void this.drop(name), TEMP_VIEW_TTL_SECONDS * 1000) };
    view.timer.unref();
    this.views.set(name, view);
    try {
      await this.ensureFolder();
      const rowCount = await write(file);
      view.rowCount = rowCount;
      const info: TempViewInfo = { name, expiresAt: new Date(view.expiresAt).toISOString(), rowCount };
      const limit = Math.min(Math.max(0, Math.floor(preview)), TEMP_VIEW_PREVIEW_MAX);
      if (limit > 0) Object.assign(info, await this.engine.typedQuery(`SELECT * FROM read_parquet(${quoteLiteral(file)}) LIMIT ${limit}`));
      if (superseded) await this.drop(superseded);
      return info;
    } catch (e) {
      await this.drop(name);
      throw e;
    }
  }

  private liveViewsOf(ownerId: string): number {
    let n = 0;
    for (const v of this.views.values()) if (v.ownerId === ownerId) n++;
    return n;
  }

  private isLiveViewOf(ownerId: string, name: string): boolean {
    const view = this.views.get(name);
    return view !== undefined && view.ownerId === ownerId && view.expiresAt >= Date.now();
  }

  /** The Parquet file of a live view the caller made; anything else is not found. */
  fileOf(ownerId: string, name: string): string {
    return this.liveView(ownerId, name).file;
  }

  private liveView(ownerId: string, name: string): TempView {
    if (!this.isLiveViewOf(ownerId, name)) throw notFound(`Temporary view ${name} not found or expired`);
    return this.views.get(name)!;
  }

  /**
   * What a download of a live view of the caller needs: its file, columns and row count (kept from its
   * creation), and where its rows are on a map, by the column names a user would give them (lat/latitude
   * with lng/lon/longitude, or a geometry column). Anything but a live view of theirs is not found.
   */
  async shapeOf(ownerId: string, name: string): Promise<{ file: string; shape: ExportShape; location: ExportLocation }> {
    const { file, rowCount } = this.liveView(ownerId, name);
    const { columns } = await this.engine.typedQuery(`SELECT * FROM read_parquet(${quoteLiteral(file)}) LIMIT 0`);
    const numeric = (c: { type: string }) => /^(DOUBLE|FLOAT|REAL|DECIMAL|INTEGER|BIGINT|SMALLINT|TINYINT|HUGEINT)/.test(c.type);
    const latitude = columns.find((c) => /^(lat|latitude)$/i.test(c.name) && numeric(c))?.name;
    const longitude = columns.find((c) => /^(lng|lon|long|longitude)$/i.test(c.name) && numeric(c))?.name;
    const geometry = columns.find((c) => /^(geometry|geom|the_geom|wkt|geojson)$/i.test(c.name) && c.type === 'VARCHAR')?.name;
    const location: ExportLocation = latitude && longitude ? { latitude, longitude } : geometry ? { geometry } : {};
    return { file, shape: { columns: columns.map((c) => c.name), rowCount }, location };
  }

  /** The relation of a live view the caller made, for compiled pipelines; anything else is not found. */
  relationOf(ownerId: string, name: string): string {
    return `read_parquet(${quoteLiteral(this.fileOf(ownerId, name))})`;
  }

  async drop(name: string): Promise<void> {
    const view = this.views.get(name);
    if (!view) return;
    clearTimeout(view.timer);
    this.views.delete(name);
    await bestEffort(rm(view.file, { force: true }), `Removing the expired view ${name}`);
  }

  async close(): Promise<void> {
    for (const name of [...this.views.keys()]) await this.drop(name);
  }
}
