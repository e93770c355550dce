import type http from 'node:http';
import { createRequire } from 'node:module';
import type snowflake from 'snowflake-sdk';
import { CONNECTION_CONFIGS, StudioError, badInput, onFirstUse } from '@studio/schema';
import { cancelled, tooManyRows, writeNdjson, type BrowseItem, type DriverTarget, type FetchedColumn, type ParamValue, type WarehouseDriver } from '../driver';
import { bindStatement, namedParameters } from '../parameters';
import { hostAndPort, pinAgent, pinnedAgents, pinnedLookups, type Pin } from '../pinned';

/**
 * Snowflake through its own Node driver (snowflake-sdk): a session per call (user and password of the
 * connection, its warehouse, database, schema and role), the user's SQL with `?` binds, every value
 * fetched as Snowflake's text and streamed, the statement cancelled on abort; information_schema for
 * browsing. The account's URL is Snowflake's (<account>.snowflakecomputing.com) or a custom endpoint
 * (PrivateLink), checked by the network rule; every request goes to the checked address, HTTPS too.
 */

/** The SDK, loaded on the first call of a Snowflake connection (57 MB of a server's memory). */
const snowflakeSdk = onFirstUse(async () => {
  // The driver probes cloud metadata addresses (169.254.169.254, metadata.google.internal) at each login
  // to report the platform it runs on: the studio never sends traffic there.
  process.env.SNOWFLAKE_DISABLE_PLATFORM_DETECTION ??= 'true';
  const sdk = (await import('snowflake-sdk')).default;
  sdk.configure({ logLevel: 'OFF' });
  return sdk;
});

type Connection = ReturnType<typeof snowflake.createConnection>;
type Statement = ReturnType<Connection['execute']>;

interface Target {
  options: Parameters<typeof snowflake.createConnection>[0];
  database?: string;
  settings: DriverTarget['settings'];
  /** Ends the session's sockets. */
  close(): void;
}

/**
 * The agents of one Snowflake session, pinned (../pinned.ts): for HTTPS the SDK's own OCSP-checking agent,
 * so certificates are checked for revocation as the SDK does by default; a result chunk's storage host is
 * checked by the network rule when first asked for.
 */
function pinnedSnowflakeAgents(t: DriverTarget, pin: Pin): { http: http.Agent; https: http.Agent } {
  const fromSdk = createRequire(createRequire(import.meta.url).resolve('snowflake-sdk'));
  const HttpsOcspAgent = fromSdk('./lib/agent/https_ocsp_agent') as unknown;
  if (typeof HttpsOcspAgent !== 'function') throw new StudioError(500, 'snowflake-sdk has changed: its HttpsOcspAgent is gone');
  const lookups = pinnedLookups(t.reach, pin);
  // Idle sockets close as the SDK's own agents' do (30 s); the session's end destroys them (withSession).
  const options = { keepAlive: true, timeout: 30_000 };
  return {
    http: pinnedAgents(t.reach, pin, options).httpAgent,
    https: pinAgent(new (HttpsOcspAgent as new (o: object) => http.Agent)(options), lookups),
  };
}

async function snowflakeTarget(t: DriverTarget): Promise<Target> {
  const parsed = CONNECTION_CONFIGS.snowflake.safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const c = parsed.data;
  const url = new URL(c.endpoint ?? `https://${c.account}.snowflakecomputing.com`);
  const { host, port } = hostAndPort(url);
  const pin: Pin = { host, address: await t.reach.check(host, port) };
  const agents = pinnedSnowflakeAgents(t, pin);
  return {
    options: {
      account: c.account,
      accessUrl: url.origin,
      // The SDK asks its `agentClass` option (undeclared in its types, called as a function) for each request's agent.
      ...{ agentClass: (o: { protocol?: string }) => (o.protocol === 'https:' ? agents.https : agents.http) },
      username: c.user,
      password: t.credentials?.password,
      warehouse: c.warehouse,
      database: c.database,
      schema: c.schema,
      role: c.role,
      application: 'studio',
      timeout: t.settings.connectTimeoutMs,
      clientSessionKeepAlive: false,
    },
    database: c.database,
    settings: t.settings,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function snowflakeError(e: unknown, prefix = ''): StudioError {
  if (e instanceof StudioError) return e;
  const err = e as { message?: string; code?: string | number };
  const message = err.message ?? String(e);
  if (/Incorrect username or password/i.test(message)) return new StudioError(422, `Could not connect: ${message}`);
  if (/ECONNREFUSED|ETIMEDOUT|ENOTFOUND|Network error|Request to Snowflake failed/i.test(message)) return new StudioError(422, `Could not connect: ${message}`);
  return new StudioError(422, `${prefix}${message}`);
}

async function withSession<T>(s: Target, fn: (c: Connection) => Promise<T>): Promise<T> {
  const connection = (await snowflakeSdk()).createConnection(s.options);
  // The callback form: connectAsync reports a refused login as "terminated connection", losing Snowflake's words.
  try {
    await new Promise<void>((resolve, reject) => connection.connect((e) => (e ? reject(snowflakeError(e, 'Could not connect: ')) : resolve())));
    try {
      return await fn(connection);
    } finally {
      await new Promise<void>((resolve) => connection.destroy(() => resolve()));
    }
  } finally {
    s.close();
  }
}

/** Snowflake's column type (and scale) as a DuckDB type. */
export function snowflakeDuckType(type: string, scale = 0): string {
  switch (type.toLowerCase()) {
    case 'fixed': return scale > 0 ? 'DOUBLE' : 'BIGINT';
    case 'real': return 'DOUBLE';
    case 'boolean': return 'BOOLEAN';
    case 'date': return 'DATE';
    case 'timestamp_ntz': return 'TIMESTAMP';
    case 'timestamp_ltz': case 'timestamp_tz': return 'TIMESTAMPTZ';
    case 'variant': case 'object': case 'array': return 'JSON';
    default: return 'VARCHAR';
  }
}

/** Runs one statement, streaming its rows (as Snowflake's text) to `onRows` in batches. */
function execute(c: Connection, s: Target, sql: string, binds: ParamValue[], onRows: (rows: unknown[][]) => Promise<void>, signal?: AbortSignal): Promise<{ columns: FetchedColumn[]; rowCount: number }> {
  return new Promise((resolve, reject) => {
    let statement: Statement | undefined;
    const stop = () => statement?.cancel(() => undefined);
    const timer = setTimeout(stop, s.settings.statementTimeoutMs);
    const done = (e: unknown, value?: { columns: FetchedColumn[]; rowCount: number }) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      if (e) reject(signal?.aborted ? cancelled() : snowflakeError(e));
      else resolve(value!);
    };
    signal?.addEventListener('abort', stop, { once: true });
    statement = c.execute({
      sqlText: sql,
      binds: binds as never,
      streamResult: true,
      rowMode: 'array',
      fetchAsString: ['String', 'Boolean', 'Number', 'Date', 'JSON', 'Buffer'],
      complete: (err, stmt) => {
        if (err) return done(err);
        const columns = (stmt.getColumns() ?? []).map((col) => ({ name: col.getName(), duckType: snowflakeDuckType(col.getType(), col.getScale?.() ?? 0) }));
        let rowCount = 0;
        let batch: unknown[][] = [];
        const stream = stmt.streamRows();
        let writing = Promise.resolve();
        const flush = () => {
          const rows = batch;
          batch = [];
          writing = writing.then(() => (rows.length ? onRows(rows) : undefined));
          return writing;
        };
        stream.on('data', (row: unknown[]) => {
          rowCount++;
          if (rowCount > s.settings.maxRows) {
            stream.destroy(tooManyRows(s.settings.maxRows));
            stop();
            return;
          }
          batch.push(row);
          if (batch.length >= 2000) {
            stream.pause();
            void flush().then(() => stream.resume(), (e: unknown) => stream.destroy(e as Error));
          }
        });
        stream.on('error', (e) => done(e));
        stream.on('end', () => void flush().then(() => done(null, { columns, rowCount }), (e: unknown) => done(e)));
      },
    });
  });
}

async function rowsOf(s: Target, sql: string, binds: ParamValue[] = []): Promise<unknown[][]> {
  return withSession(s, async (c) => {
    const out: unknown[][] = [];
    await execute(c, s, sql, binds, async (rows) => void out.push(...rows));
    return out;
  });
}

export const snowflakeDriver: WarehouseDriver = {
  async test(target) {
    const rows = await rowsOf(await snowflakeTarget(target), 'SELECT CURRENT_VERSION()');
    return { ok: true as const, serverVersion: `Snowflake ${String(rows[0]?.[0] ?? '')}`.trim() };
  },

  async browse(target, [schema, table]) {
    const s = await snowflakeTarget(target);
    if (schema === undefined) {
      const rows = await rowsOf(s, "SELECT schema_name FROM information_schema.schemata WHERE schema_name <> 'INFORMATION_SCHEMA' ORDER BY 1");
      return rows.map((r): BrowseItem => ({ name: String(r[0]), type: 'schema' }));
    }
    if (table === undefined) {
      const rows = await rowsOf(s, 'SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = ? ORDER BY 1', [schema]);
      return rows.map((r): BrowseItem => ({ name: String(r[0]), type: /VIEW/i.test(String(r[1])) ? 'view' : 'table' }));
    }
    const rows = await rowsOf(s, 'SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position', [schema, table]);
    return rows.map((r): BrowseItem => ({ name: String(r[0]), type: 'column', dataType: String(r[1]), nullable: r[2] === 'YES' }));
  },

  parameterNames: (sql) => namedParameters(sql, () => '?').names,

  async fetch(target, userSql, values, file, signal) {
    const { sql, bound } = bindStatement(userSql, values, () => '?');
    const s = await snowflakeTarget(target);
    return withSession(s, (c) => writeNdjson(file, (write) => execute(c, s, sql, bound, write, signal)));
  },
};
