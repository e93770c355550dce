import fs from 'node:fs/promises';
import path from 'node:path';
import type { DriverTarget, ParamValue, WarehouseDriver } from '@studio/warehouses';

/** Reaches 127.0.0.1 only, as the server's rule does for a listed test host; anything else is refused. */
export const loopbackOnly = { check: async (host: string) => (host === '127.0.0.1' ? host : Promise.reject(new Error(`not allowed: ${host}`))) };

/** A driver's fetch, read back: its columns and row count, and each NDJSON row as an object. */
export function rowFetcher(driver: WarehouseDriver, dir: () => string) {
  return async (t: DriverTarget, sql: string, values: Record<string, ParamValue> = {}, signal?: AbortSignal) => {
    const file = path.join(dir(), `${Math.random().toString(36).slice(2)}.ndjson`);
    const answer = await driver.fetch(t, sql, values, file, signal);
    const rows = (await fs.readFile(file, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, string | null>);
    return { ...answer, rows };
  };
}
