import { inject } from 'vitest';
import pg from 'pg';

/** Runs SQL on `db` of the test warehouse server as its administrator (setting up what a user's warehouse holds). */
export async function onWarehouse(db: string, sql: string): Promise<void> {
  const url = inject('warehouseServer').adminUrl.replace(/\/[^/]*$/, `/${db}`);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
