import { StudioError, notFound, bestEffort } from '@studio/schema';
import { TEMP_VIEW_SQL_LIMIT, TEMP_VIEW_TTL_SECONDS, tempViewName } from '@studio/pipeline';
import type { Engine } from '@studio/engine';

interface TempView {
  name: string;
  ownerId: string;
  expiresAt: number;
  timer: NodeJS.Timeout;
}

export const TEMP_VIEW_NAME = /^temp_[a-z0-9]{6}$/;
const SCHEMA = 'studio_temp';

/**
 * Temporary materialized views (catalog §9): a pipeline result kept in the engine for
 * TEMP_VIEW_TTL_SECONDS (60 s) under a `temp_` + 6-character name, at most TEMP_VIEW_SQL_LIMIT (100)
 * alive at once, readable only by whoever made it. Later pipelines name it as a dataset uuid, so a
 * map or a chain of queries can reuse one expensive result without recomputing it.
 */
export class TempViews {
  private readonly views = new Map<string, TempView>();
  private schemaReady: Promise<void> | null = null;

  constructor(private readonly engine: Engine) {}

  private ensureSchema(): Promise<void> {
    this.schemaReady ??= this.engine.withConnection(async (c) => {
      await c.run(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
    });
    return this.schemaReady;
  }

  get size(): number {
    return this.views.size;
  }

  async create(ownerId: string, compiled: { sql: string; params: unknown[] }): Promise<{ name: string; expiresAt: string; rowCount: number }> {
    if (this.views.size >= TEMP_VIEW_SQL_LIMIT) {
      throw new StudioError(429, `Too many temporary views (at most ${TEMP_VIEW_SQL_LIMIT}); they expire ${TEMP_VIEW_TTL_SECONDS} s after creation`);
    }
    await this.ensureSchema();
    let name = tempViewName();
    while (this.views.has(name)) name = tempViewName();
    // Reserve the slot before the work so concurrent creations respect the limit.
    const view: TempView = { name, ownerId, expiresAt: Date.now() + TEMP_VIEW_TTL_SECONDS * 1000, timer: setTimeout(() => void this.drop(name), TEMP_VIEW_TTL_SECONDS * 1000) };
    view.timer.unref();
    this.views.set(name, view);
    try {
      await this.engine.query(`CREATE TABLE ${SCHEMA}.${name} AS ${compiled.sql}`, compiled.params);
      const count = await this.engine.query(`SELECT count(*)::BIGINT AS n FROM ${SCHEMA}.${name}`);
      return { name, expiresAt: new Date(view.expiresAt).toISOString(), rowCount: Number(count[0]?.n ?? 0) };
    } catch (e) {
      await this.drop(name);
      throw e;
    }
  }

  /** The relation of a live view the caller made; anything else is not found. */
  relationOf(ownerId: string, name: string): string {
    const view = this.views.get(name);
    if (!view || view.ownerId !== ownerId || view.expiresAt < Date.now()) throw notFound(`Temporary view ${name} not found or expired`);
    return `${SCHEMA}.${name}`;
  }

  async drop(name: string): Promise<void> {
    const view = this.views.get(name);
    if (view) clearTimeout(view.timer);
    this.views.delete(name);
    await bestEffort(this.engine.query(`DROP TABLE IF EXISTS ${SCHEMA}.${name}`), `Dropping the expired view ${name}`);
  }

  async close(): Promise<void> {
    for (const name of [...this.views.keys()]) await this.drop(name);
  }
}
