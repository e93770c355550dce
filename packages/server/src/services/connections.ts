import { StoredConnection, badInput, isDatabaseConnectionType, notFound } from '@studio/schema';
import type { Db } from '../store/db';
import type { ResourceRow } from './records';

/** The stored form of a data connection, or null when its attrs do not parse. */
export function storedConnection(row: ResourceRow) {
  const parsed = StoredConnection.safeParse(row.attrs);
  return parsed.success ? parsed.data : null;
}

/**
 * Refuses a storage connection (s3, gcs, planet) where a database is needed (catalog §8), 422: schemas,
 * tables and queries only exist on warehouses.
 */
export function assertDatabaseConnection(row: ResourceRow): void {
  const stored = storedConnection(row);
  if (!stored || !isDatabaseConnectionType(stored.type)) throw badInput('Not a database connection');
}

/** A parent connection must exist, be a connection and not be the connection itself or below it. */
export async function assertParent(db: Db, parentId: string, selfId?: string): Promise<void> {
  let at: string | null = parentId;
  for (let depth = 0; at && depth < 32; depth++) {
    if (at === selfId) throw badInput('A connection cannot be its own parent');
    const row: { attrs: Record<string, unknown> } | undefined = await db
      .selectFrom('resources')
      .select('attrs')
      .where('id', '=', at)
      .where('type', '=', 'data-connection')
      .executeTakeFirst();
    if (!row) throw notFound('Parent connection not found');
    at = typeof row.attrs?.parentId === 'string' ? row.attrs.parentId : null;
  }
}
