import { createHash } from 'node:crypto';
import { checkServerIdentity } from 'node:tls';
import pg from 'pg';
import { CONNECTION_CONFIGS, StudioError, badInput, type SSL_MODES, bestEffort } from '@studio/schema';
import { driverError, type DriverTarget } from '../driver';
import { openTunnel, type SshTunnelConfig, type Tunnel } from '../ssh';

/**
 * Sessions on a PostgreSQL-protocol warehouse: the target as the connection's settings say (TLS, SSH
 * tunnel), the role check every session passes before a user query, and the sessions kept per warehouse
 * identity so a query does not pay PostgreSQL's connection start (a new server process, measured at
 * 40-50 ms of a 150 ms query on this machine).
 */
export type Flavor = 'postgres' | 'redshift';

export interface PgTarget {
  flavor: Flavor;
  host: string;
  port: number;
  database: string;
  user: string;
  sslmode: (typeof SSL_MODES)[number];
  /** PEM authorities that sign the server's certificate (verify-full), instead of the system's. */
  ca?: string;
  ssh?: SshTunnelConfig;
  password?: string;
  target: DriverTarget;
}

export function pgTarget(t: DriverTarget): PgTarget {
  const flavor: Flavor = t.type === 'redshift' ? 'redshift' : 'postgres';
  const parsed = CONNECTION_CONFIGS[flavor].safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const c = parsed.data;
  let ssh: SshTunnelConfig | undefined;
  if (c.sshHost) {
    if (!c.sshUser) throw badInput('SSH user is required with an SSH host');
    ssh = { host: c.sshHost, port: c.sshPort, user: c.sshUser, hostKey: c.sshHostKey, privateKey: t.credentials?.sshPrivateKey, password: t.credentials?.sshPassword };
  }
  return { flavor, host: c.host, port: c.port, database: c.database, user: c.user, sslmode: c.sslmode, ca: c.caCertificate, ssh, password: t.credentials?.password, target: t };
}

/**
 * TLS as libpq's sslmode says: `require` encrypts without checking the certificate; `verify-full` checks
 * it against the connection's CA certificate (else the system's authorities) and the host name the user
 * typed, also when the socket goes to a checked address or through an SSH tunnel.
 */
function tlsOf(t: PgTarget): pg.ClientConfig['ssl'] {
  if (t.sslmode === 'disable') return false;
  if (t.sslmode === 'require') return { rejectUnauthorized: false };
  return { rejectUnauthorized: true, ...(t.ca && { ca: t.ca }), checkServerIdentity: (_name, cert) => checkServerIdentity(t.host, cert) };
}

/** Every value as PostgreSQL's own text: typing happens once, in DuckDB. */
const asText = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

function clientConfig(t: PgTarget, address: string, tunnel: Tunnel | null): pg.ClientConfig {
  return {
    // The checked address, not the name: a second DNS answer must not lead somewhere else. Through a
    // tunnel, the bastion resolves the name; `host` is then only the name TLS checks.
    host: tunnel ? t.host : address,
    ...(tunnel && { stream: () => tunnel.stream as never }),
    port: t.port,
    database: t.database,
    user: t.user,
    password: t.password,
    ssl: tlsOf(t),
    connectionTimeoutMillis: t.target.settings.connectTimeoutMs,
    application_name: 'studio',
    types: asText,
  };
}

/**
 * A role that can read or write the server's files or run programs on it (superusers, members of
 * pg_read_server_files, pg_write_server_files or pg_execute_server_program) would turn a data connection
 * into a way onto the database's machine: such sessions are refused before any user query.
 */
const PRIVILEGED_ROLE = `select r.rolsuper
    or pg_has_role(current_user, 'pg_read_server_files', 'member')
    or pg_has_role(current_user, 'pg_write_server_files', 'member')
    or pg_has_role(current_user, 'pg_execute_server_program', 'member') as privileged
  from pg_roles r where r.rolname = current_user`;

/** Redshift has no server-file roles; a superuser is what it refuses (pg_user exists in both). */
const REDSHIFT_SUPERUSER = `select usesuper as privileged from pg_user where usename = current_user`;

/**
 * The socket's way to the warehouse: straight to its checked address, or, with an SSH host, through a
 * tunnel from the bastion's checked address (the bastion reaches the warehouse, as `ssh -L` does).
 */
async function routeTo(t: PgTarget): Promise<{ address: string; tunnel: Tunnel | null }> {
  if (!t.ssh) return { address: await t.target.reach.check(t.host, t.port), tunnel: null };
  const bastion = await t.target.reach.check(t.ssh.host, t.ssh.port);
  return { address: bastion, tunnel: await openTunnel(t.ssh, bastion, { host: t.host, port: t.port }, t.target.settings.connectTimeoutMs) };
}

/** Refuses a session whose role may touch the server's files or programs (see PRIVILEGED_ROLE). */
async function checkRole(t: PgTarget, client: pg.ClientBase): Promise<void> {
  const role = await client.query<{ privileged: string }>(t.flavor === 'redshift' ? REDSHIFT_SUPERUSER : PRIVILEGED_ROLE).catch((e: unknown) => {
    throw driverError(e, 'Could not check the role of this connection: ');
  });
  // Values arrive as PostgreSQL's text (asText): 'f' is the one answer that lets the session through.
  if (role.rows[0]?.privileged !== 'f') {
    throw new StudioError(422, `The role ${t.user} may read the server's files or run programs on it (a superuser, or a member of pg_read_server_files, pg_write_server_files or pg_execute_server_program): connect with a role without those rights`);
  }
}

/** A session of its own, opened for `fn` and closed after (connection tests, cancels, tunnels, Redshift). */
export async function connected<T>(t: PgTarget, fn: (c: pg.ClientBase) => Promise<T>): Promise<T> {
  const { address, tunnel } = await routeTo(t);
  const client = new pg.Client(clientConfig(t, address, tunnel));
  // A broken socket after connect surfaces as an 'error' event; without a listener it would crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (e) {
    await bestEffort(client.end(), 'Closing a PostgreSQL session that did not connect');
    tunnel?.close();
    throw driverError(e, 'Could not connect: ');
  }
  try {
    await checkRole(t, client);
    return await fn(client);
  } finally {
    await bestEffort(client.end(), 'Closing a PostgreSQL session');
    tunnel?.close();
  }
}

/** Sessions kept per identity, and their idle life: a dashboard's widgets or a workspace's runs come in bursts. */
const POOL_SIZE = 4;
const POOL_IDLE_MS = 30_000;

interface KeptPool {
  pool: pg.Pool;
  address: string;
}

const pools = new Map<string, KeptPool>();
/** Sessions whose role has been checked (once per session: the role of a session cannot change). */
const checked = new WeakSet<pg.ClientBase>();
/** Sessions not to keep after their run: a cancel sent to them could land on the next run; a COPY cut short leaves them mid-protocol. */
const retired = new WeakSet<pg.ClientBase>();

/** Closes `client` after its run instead of keeping it (a cancel sent to it, a COPY cut short). */
export function retire(client: pg.ClientBase): void {
  retired.add(client);
}

/**
 * Sessions of one warehouse identity (checked address, database, user, secret, TLS), kept between runs.
 * The key is a hash: the map never holds a password as text.
 */
function poolOf(t: PgTarget, address: string): pg.Pool {
  const key = createHash('sha256').update(JSON.stringify([t.flavor, address, t.host, t.port, t.database, t.user, t.password ?? null, t.sslmode, t.ca ?? null, t.target.settings.connectTimeoutMs])).digest('base64url');
  const kept = pools.get(key);
  if (kept) return kept.pool;
  const pool = new pg.Pool({ ...clientConfig(t, address, null), max: POOL_SIZE, idleTimeoutMillis: POOL_IDLE_MS, allowExitOnIdle: true });
  // An idle session the server closed surfaces here; the pool drops it and opens another when asked.
  pool.on('error', () => undefined);
  // The last idle session gone: the pool goes too (settings changed, or the warehouse is no longer used).
  pool.on('remove', () => {
    if (pool.totalCount === 0 && pools.get(key)?.pool === pool) {
      pools.delete(key);
      void bestEffort(pool.end(), 'Closing an idle PostgreSQL pool');
    }
  });
  pools.set(key, { pool, address });
  return pool;
}

/**
 * A kept session for `fn` (PostgreSQL reached directly); a session of its own otherwise (tunnels, and
 * Redshift, whose sessions cannot be reset as below). `fn` runs in a transaction it opens; the session
 * goes back rolled back and reset by DISCARD ALL, so nothing a query left (session settings, advisory
 * locks, temporary tables, prepared statements, cursors) reaches the next one.
 */
export async function session<T>(t: PgTarget, fn: (c: pg.ClientBase) => Promise<T>): Promise<T> {
  if (t.ssh || t.flavor === 'redshift') return connected(t, fn);
  // Checked on every run: a name that now resolves elsewhere gets a pool of its own.
  const address = await t.target.reach.check(t.host, t.port);
  let client: pg.PoolClient;
  try {
    client = await poolOf(t, address).connect();
  } catch (e) {
    throw driverError(e, 'Could not connect: ');
  }
  try {
    if (!checked.has(client)) {
      await checkRole(t, client);
      checked.add(client);
    }
    return await fn(client);
  } finally {
    // The answer does not wait for the reset: the session goes back to the pool once it is clean.
    void resetAndRelease(client);
  }
}

async function resetAndRelease(client: pg.PoolClient): Promise<void> {
  try {
    if (retired.has(client)) throw new Error('not kept: a cancel was sent to it or a COPY was cut short');
    await client.query('rollback');
    await client.query('discard all');
    client.release();
  } catch (e) {
    // A session that cannot be reset is not kept.
    client.release(e instanceof Error ? e : new Error(String(e)));
  }
}

/** Closes every kept session (the server stopping). */
export async function closePostgresSessions(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => bestEffort(p.pool.end(), 'Closing a PostgreSQL pool')));
}
