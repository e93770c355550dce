import { copyFile, rename, rm } from 'node:fs/promises';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { StudioError, isStudioError } from '@studio/schema';
import { quoteLiteral } from '@studio/engine';
import { LockedInstances, type LockedInstancesOptions } from './locked-instances';
import { rewriteSql, type SandboxedQuery, type TableResolver } from './rewrite';

export type { SandboxedQuery, TableResolver } from './rewrite';

/**
 * The one way user-written SQL runs on the studio's data (data queries, queries and workbench SQL that
 * make datasets, and the dashboards', workbooks' and connections' DuckDB work to come):
 * 1. `compile` rewrites the query's AST so that table names become the caller's dataset files (rewrite.ts);
 * 2. `copyToParquet`/`readRows` run it on a DuckDB instance that can read only those files (locked-instances.ts).
 * Errors never show a storage path: the files are named back by the table names the user wrote.
 *
 * Pipeline expressions do not come here: they are parsed by the pipeline's own grammar with an allow-list
 * of functions and compiled to SQL (packages/pipeline/src/expr), so no user text reaches DuckDB.
 */
/** Rewritten queries kept per node. */
const COMPILED_QUERIES = 500;
const filesKey = (files: Map<string, string>) => JSON.stringify([...files]);

export class SqlSandbox {
  private readonly instances: LockedInstances;

  constructor(private readonly opts: LockedInstancesOptions & { dataDir: string }) {
    this.instances = new LockedInstances(opts);
  }

  get memoryPerInstance(): string {
    return this.instances.memoryPerInstance;
  }

  get openInstances(): number {
    return this.instances.size;
  }

  /**
   * The safe SQL of `query` and the files it reads; 422 for anything refused. The tables a query names do
   * not depend on who asks, so a query seen before only has its names resolved again (with the caller's
   * access, in the same order): the parse and rewrite, two DuckDB round trips (~3-4 ms), are skipped
   * when the names lead to the same files.
   */
  async compile(query: string, resolve: TableResolver): Promise<SandboxedQuery> {
    try {
      const known = this.compiled.get(query);
      if (known) {
        const files = new Map<string, string>();
        for (const name of known.names) files.set(name, await resolve(name));
        const sql = known.sqlByFiles.get(filesKey(files));
        if (sql !== undefined) {
          this.compiled.delete(query);
          this.compiled.set(query, known);
          return { sql, files };
        }
      }
      const fresh = await this.instances.with([], (c) => rewriteSql(c, query, resolve));
      this.remember(query, fresh);
      return fresh;
    } catch (e) {
      throw this.userError(e, new Map());
    }
  }

  /** Query text → the table names it reads and its rewritten SQL per set of files (least recently used out). */
  private readonly compiled = new Map<string, { names: string[]; sqlByFiles: Map<string, string> }>();

  private remember(query: string, q: SandboxedQuery): void {
    const entry = this.compiled.get(query) ?? { names: [...q.files.keys()], sqlByFiles: new Map() };
    if (entry.sqlByFiles.size >= 8) entry.sqlByFiles.clear();
    entry.sqlByFiles.set(filesKey(q.files), q.sql);
    this.compiled.delete(query);
    this.compiled.set(query, entry);
    if (this.compiled.size > COMPILED_QUERIES) this.compiled.delete(this.compiled.keys().next().value!);
  }

  /** Names of the `$name` parameters the query binds, in order of first use. */
  async parameterNames(q: SandboxedQuery): Promise<string[]> {
    return this.run(q, async (c) => {
      const prepared = await c.prepare(q.sql);
      const names: string[] = [];
      for (let i = 1; i <= prepared.parameterCount; i++) names.push(prepared.parameterName(i));
      return [...new Set(names)];
    }, 'Could not parse query');
  }

  /** Runs the query into a Parquet file at `file`; answers its row count. `signal` interrupts it. */
  async copyToParquet(q: SandboxedQuery, params: Record<string, DuckDBValue>, file: string, signal?: AbortSignal): Promise<number> {
    return this.run(q, async (c, out) => {
      const stop = () => c.interrupt();
      signal?.addEventListener('abort', stop, { once: true });
      try {
        if (signal?.aborted) throw new StudioError(499, 'The query was cancelled');
        const r = await c.runAndReadAll(`COPY (${q.sql}) TO ${quoteLiteral(out)} (FORMAT parquet)`, Object.keys(params).length ? params : undefined);
        await moveFile(out, file);
        return Number(r.getRows()[0]?.[0] ?? 0);
      } finally {
        signal?.removeEventListener('abort', stop);
      }
    }, 'The query failed');
  }

  /** Runs the query and answers its rows as arrays (small results: previews, tests, the bench). */
  async readRows(q: SandboxedQuery, params: Record<string, DuckDBValue> = {}): Promise<unknown[][]> {
    return this.run(q, async (c) => (await c.runAndReadAll(q.sql, Object.keys(params).length ? params : undefined)).getRows(), 'The query failed');
  }

  private async run<T>(q: SandboxedQuery, work: (c: DuckDBConnection, out: string) => Promise<T>, failure: string): Promise<T> {
    try {
      return await this.instances.with([...q.files.values()], work);
    } catch (e) {
      if (isStudioError(e)) throw e;
      throw new StudioError(422, `${failure}: ${this.scrub((e as Error)?.message ?? String(e), q.files)}`);
    }
  }

  private userError(e: unknown, files: Map<string, string>): unknown {
    if (isStudioError(e)) return new StudioError(e.status, this.scrub(e.message, files), e.details ? this.scrub(e.details, files) : undefined);
    return new StudioError(422, `Could not parse query: ${this.scrub((e as Error)?.message ?? String(e), files)}`);
  }

  /** A DuckDB message without storage paths: files are named by the table the user wrote, other paths hidden. */
  scrub(message: string, files: Map<string, string>): string {
    // DuckDB quotes the rewritten statement after "LINE n:", which shows read_parquet of a storage path.
    let out = message.replace(/\n+LINE \d+:[\s\S]*$/, '');
    for (const [name, file] of files) out = out.split(file).join(name);
    out = out.split(this.opts.dataDir).join('<data>');
    return out.replace(/(?:[A-Za-z]:)?(?:\/[^\s/'"`,;)]+){2,}\/?/g, '<path>').replace(/<data>[^\s'"`,;)]*/g, '<path>');
  }

  close(): Promise<void> {
    return this.instances.close();
  }
}

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await copyFile(from, to);
    await rm(from, { force: true });
  }
}
