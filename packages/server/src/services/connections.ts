import { CONNECTION_CONFIGS, StoredConnection, StudioError, badInput, isDatabaseConnectionType, notFound, type RefusedConnection } from '@studio/schema';
import type { Db } from '../store/db';
import type { NetworkReach } from './network-reach';
import type { ResourceRow } from './records';

/** The parent a stored connection names (a row that does not parse names none). */
const ParentOf = StoredConnection.pick({ parentId: true });

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
    at = ParentOf.safeParse(row.attrs).data?.parentId ?? null;
  }
}

/** Default ports of the kinds whose address is a URL. */
const URL_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The host and port a connection of this kind opens a socket to, or null for kinds reached only through a
 * vendor's fixed public API (Snowflake accounts, BigQuery, Athena, MotherDuck, GCS). Every driver asks
 * NetworkReach about exactly this endpoint before connecting.
 */
export function connectionEndpoint(stored: StoredConnection): { host: string; port: number } | null {
  const parsed = CONNECTION_CONFIGS[stored.type].safeParse(stored.config);
  if (!parsed.success) return null;
  const config = parsed.data as Record<string, unknown>;
  // Through an SSH host the studio's socket goes to the bastion; the bastion reaches the warehouse.
  if (typeof config.sshHost === 'string') return { host: config.sshHost, port: typeof config.sshPort === 'number' ? config.sshPort : 22 };
  if (typeof config.host === 'string') return { host: config.host, port: typeof config.port === 'number' ? config.port : 443 };
  const url = [config.url, config.endpoint, config.apiUrl].find((u): u is string => typeof u === 'string');
  if (!url) return null;
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) || URL_PORTS[u.protocol] || 443 };
}

/**
 * Saved connections the network rule refuses today (e.g. a warehouse on a private address saved before
 * STUDIO_CONNECTION_HOSTS existed): listed at start and on the administrators' page, so they can be
 * allowed or changed. Names are resolved as a connection would resolve them.
 */
export async function refusedConnections(db: Db, reach: NetworkReach): Promise<RefusedConnection[]> {
  const rows = await db.selectFrom('resources').select(['id', 'name', 'owner_id', 'attrs']).where('type', '=', 'data-connection').orderBy('name').orderBy('id').execute();
  const refused: RefusedConnection[] = [];
  for (const row of rows) {
    const stored = StoredConnection.safeParse(row.attrs);
    const endpoint = stored.success ? connectionEndpoint(stored.data) : null;
    if (!stored.success || !endpoint) continue;
    try {
      await reach.check(endpoint.host, endpoint.port);
    } catch (e) {
      if (!(e instanceof StudioError)) throw e;
      refused.push({ id: row.id, name: row.name, connectionType: stored.data.type, ownerId: row.owner_id, ...endpoint, reason: e.message });
    }
  }
  return refused;
}
