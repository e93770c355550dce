import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DuckDBInstance } from '@duckdb/node-api';

/** The engine behind every protocol server of these tests: DuckDB with one catalog of the given name, seeded. */
export async function seededDuckDB(catalog: string, setup: string): Promise<DuckDBInstance> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(`ATTACH ':memory:' AS "${catalog.replaceAll('"', '""')}"`);
    await c.run(`USE "${catalog.replaceAll('"', '""')}"`);
    await c.run(setup);
  } finally {
    c.closeSync();
  }
  return db;
}

/** Listens on a free loopback port; `close` drops open connections, stops the server and the engine. */
export async function listenOnLoopback(server: http.Server, db: DuckDBInstance): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.closeSync();
    },
  };
}

/** Backtick-quoted identifiers (BigQuery, Databricks) as DuckDB writes them. */
export const backticksToQuotes = (sql: string) => sql.replace(/`([^`]*)`/g, (_m, name: string) => `"${name.replaceAll('"', '""')}"`);
