import { open, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { CONNECTION_CONFIGS, StudioError, badInput, quoteIdent, quoteLiteral } from '@studio/schema';
import { cancelled, driverError, ndjsonRow, tooManyRows, type BrowseItem, type DriverTarget, type FetchedColumn, type WarehouseDriver } from '../driver';
import { bindStatement, namedParameters } from '../parameters';

/**
 * MotherDuck (`md:<database>`, through DuckDB's `motherduck` extension) and DuckDB's local path: a
 * `.duckdb` file, a Parquet file, or a folder of Parquet files under a folder the administrator lists in
 * STUDIO_DUCKDB_FOLDERS. A local database is attached READ_ONLY in an instance of its own whose external
 * access, extension loading and configuration are then locked: the user's SQL reads that database and
 * nothing else on the machine.
 */

const CATALOG = 'warehouse';

type Source = { kind: 'motherduck'; database: string } | { kind: 'duckdb'; file: string } | { kind: 'parquet'; files: string[] };


async function sourceOf(t: DriverTarget): Promise<Source> {
  const parsed = CONNECTION_CONFIGS.motherduck.safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const database = parsed.data.database;
  if (/^(md|motherduck):/i.test(database)) return { kind: 'motherduck', database: database.replace(/^(md|motherduck):/i, '') };
  const folders = t.settings.duckdbFolders;
  if (!folders.length) {
    throw badInput('Local DuckDB files are not enabled on this server', 'Name a MotherDuck database as md:<name>, or ask an administrator to list a folder in STUDIO_DUCKDB_FOLDERS');
  }
  let real: string;
  try {
    real = await realpath(path.isAbsolute(database) ? database : path.join(folders[0]!, database));
  } catch {
    throw badInput(`No DuckDB file or folder at ${database}`);
  }
  const inside = await Promise.all(folders.map(async (f) => {
    const root = await realpath(f).catch(() => null); // an allowed folder that does not exist holds nothing
    if (!root) return false;
    const rel = path.relative(root, real);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  }));
  if (!inside.some(Boolean)) throw badInput(`${database} is outside the folders this server opens (STUDIO_DUCKDB_FOLDERS)`);
  if ((await stat(real)).isDirectory()) {
    const files = (await readdir(real)).filter((f) => f.endsWith('.parquet')).sort().map((f) => path.join(real, f));
    if (!files.length) throw badInput(`The folder ${database} holds no Parquet files`);
    return { kind: 'parquet', files };
  }
  if (real.endsWith('.parquet')) return { kind: 'parquet', files: [real] };
  return { kind: 'duckdb', file: real };
}

/** An instance that sees the connection's database only; closed by the caller. */
async function openSource(t: DriverTarget): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  const source = await sourceOf(t);
  const instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false' });
  const c = await instance.connect();
  try {
    if (source.kind === 'motherduck') {
      try {
        await c.run('LOAD motherduck');
      } catch (e) {
        throw new StudioError(
          422,
          `MotherDuck needs DuckDB's motherduck extension, which this server cannot load: ${(e as Error).message.split('\n')[0]}`,
          'Install the extension where the studio runs (INSTALL motherduck), or open a local DuckDB file under STUDIO_DUCKDB_FOLDERS',
        );
      }
      // The option exists only once the extension is loaded; the token is a quoted value, never SQL text.
      if (t.credentials?.token) await c.run(`SET motherduck_token = ${quoteLiteral(t.credentials.token)}`);
      await c.run(`ATTACH ${quoteLiteral(`md:${source.database}`)} AS ${CATALOG} (READ_ONLY)`).catch((e: unknown) => {
        throw driverError(e, 'Could not connect: ');
      });
      // Attached first; then, as for a local file, nothing on this machine may be read (fails safe: should
      // the extension need external access for later reads, the query fails rather than opening files).
      await c.run('SET enable_external_access = false');
    } else if (source.kind === 'duckdb') {
      await c.run(`ATTACH ${quoteLiteral(source.file)} AS ${CATALOG} (READ_ONLY)`).catch((e: unknown) => {
        throw driverError(e, 'Could not open the DuckDB file: ');
      });
      await c.run('SET enable_external_access = false');
    } else {
      await c.run(`ATTACH ':memory:' AS ${CATALOG}`);
      for (const f of source.files) {
        await c.run(`CREATE VIEW ${CATALOG}.main.${quoteIdent(path.basename(f, '.parquet'))} AS SELECT * FROM read_parquet(${quoteLiteral(f)})`).catch((e: unknown) => {
          throw driverError(e, `Could not read ${path.basename(f)}: `);
        });
      }
      await c.run(`SET allowed_paths = [${source.files.map(quoteLiteral).join(', ')}]`);
      await c.run('SET enable_external_access = false');
    }
    await c.run(`USE ${CATALOG}`);
    await c.run('SET autoload_known_extensions = false');
    await c.run('SET lock_configuration = true');
    return { instance, connection: c };
  } catch (e) {
    c.closeSync();
    instance.closeSync();
    throw e;
  }
}

async function withSource<T>(t: DriverTarget, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
  const { instance, connection } = await openSource(t);
  try {
    return await fn(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** DuckDB types that come back through their text unchanged; anything else stays text. */
const KEEP = /^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\)|DATE|TIME|TIMESTAMP|TIMESTAMP_MS|TIMESTAMP_S|TIMESTAMP_NS|TIMESTAMP WITH TIME ZONE|UUID|INTERVAL|JSON)$/;

async function rows(c: DuckDBConnection, sql: string, values: DuckDBValue[] = []): Promise<Record<string, unknown>[]> {
  try {
    return (await c.runAndReadAll(sql, values)).getRowObjectsJS() as Record<string, unknown>[];
  } catch (e) {
    throw driverError(e);
  }
}

export const motherduckDriver: WarehouseDriver = {
  async test(target) {
    return withSource(target, async (c) => {
      const r = await rows(c, 'SELECT version() AS v');
      return { ok: true as const, serverVersion: `DuckDB ${String(r[0]?.v ?? '')}` };
    });
  },

  async browse(target, [schema, table]) {
    return withSource(target, async (c): Promise<BrowseItem[]> => {
      if (schema === undefined) {
        const r = await rows(c, "SELECT schema_name AS name FROM information_schema.schemata WHERE catalog_name = ? AND schema_name NOT IN ('information_schema', 'pg_catalog') ORDER BY 1", [CATALOG]);
        return r.map((x) => ({ name: String(x.name), type: 'schema' }));
      }
      if (table === undefined) {
        const r = await rows(c, 'SELECT table_name AS name, table_type FROM information_schema.tables WHERE table_catalog = ? AND table_schema = ? ORDER BY 1', [CATALOG, schema]);
        return r.map((x) => ({ name: String(x.name), type: x.table_type === 'VIEW' ? 'view' : 'table' }));
      }
      const r = await rows(
        c,
        'SELECT column_name AS name, data_type, is_nullable FROM information_schema.columns WHERE table_catalog = ? AND table_schema = ? AND table_name = ? ORDER BY ordinal_position',
        [CATALOG, schema, table],
      );
      return r.map((x) => ({ name: String(x.name), type: 'column', dataType: String(x.data_type), nullable: x.is_nullable === 'YES' }));
    });
  },

  parameterNames: (sql) => namedParameters(sql, (n) => `$${n}`).names,

  async fetch(target, userSql, values, file, signal) {
    const { sql, bound: given } = bindStatement(userSql, values, (n) => `$${n}`);
    const bound = given as DuckDBValue[];
    return withSource(target, async (c) => {
      const stop = () => c.interrupt();
      signal?.addEventListener('abort', stop, { once: true });
      const timer = setTimeout(stop, target.settings.statementTimeoutMs);
      const out = await open(file, 'w');
      try {
        const described = await rows(c, `DESCRIBE (${sql})`, bound);
        const columns: FetchedColumn[] = described.map((d) => ({ name: String(d.column_name), duckType: KEEP.test(String(d.column_type)) ? String(d.column_type) : 'VARCHAR' }));
        if (!columns.length) throw badInput('The query answers no columns');
        // Every value as DuckDB's own text, as every driver hands it over; typed again on the studio's side.
        const result = await c.stream(`SELECT COLUMNS(*)::VARCHAR FROM (${sql})`, bound).catch((e: unknown) => {
          throw signal?.aborted ? cancelled() : driverError(e);
        });
        let rowCount = 0;
        for (;;) {
          const chunk = await result.fetchChunk().catch((e: unknown) => {
            throw signal?.aborted ? cancelled() : driverError(e);
          });
          if (!chunk || chunk.rowCount === 0) break;
          rowCount += chunk.rowCount;
          if (rowCount > target.settings.maxRows) throw tooManyRows(target.settings.maxRows);
          await out.write(`${(chunk.getRows() as unknown[][]).map(ndjsonRow).join('\n')}\n`);
        }
        if (signal?.aborted) throw cancelled();
        return { columns, rowCount };
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', stop);
        await out.close();
      }
    });
  },
};
