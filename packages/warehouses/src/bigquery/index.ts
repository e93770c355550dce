import type { BigQuery, BigQueryOptions, Job } from '@google-cloud/bigquery';
import { CONNECTION_CONFIGS, StudioError, badInput, bestEffort, onFirstUse } from '@studio/schema';
import { cancelled, tooManyRows, writeNdjson, type BrowseItem, type DriverTarget, type FetchedColumn, type ParamValue, type WarehouseDriver } from '../driver';
import { googleEndpoint, googleError, selfSignedJwt, serviceAccountOf } from '../google';
import { bindStatement, namedParameters } from '../parameters';

/**
 * BigQuery through Google's own client (@google-cloud/bigquery): a query job (standard SQL, named
 * parameters `@p1…` typed by the client from their values, the connection's default dataset and
 * location), its results page by page as BigQuery's own text (rows of {f: [{v}]}; skipParsing), the job
 * cancelled on abort; datasets, tables and table schemas through the API. Signed by the connection's
 * service account key with a self-signed scoped JWT.
 */

interface Target {
  bq: BigQuery;
  projectId: string;
  dataset?: string;
  location?: string;
  settings: DriverTarget['settings'];
}

interface Field {
  name: string;
  type: string;
  mode?: string;
}
interface ResultsResponse {
  schema?: { fields?: Field[] };
  jobComplete?: boolean;
  pageToken?: string;
}
type RawRow = { f: { v: unknown }[] };

/** Google's client, loaded on the first call of a BigQuery connection. */
const bigquerySdk = onFirstUse(() => import('@google-cloud/bigquery'));

async function bigqueryTarget(t: DriverTarget): Promise<Target> {
  const parsed = CONNECTION_CONFIGS.bigquery.safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const c = parsed.data;
  const key = serviceAccountOf(t);
  const { apiEndpoint, interceptor } = await googleEndpoint(t, 'bigquery.googleapis.com', c.endpoint);
  const { BigQuery } = await bigquerySdk();
  const bq = new BigQuery({
    projectId: c.projectId,
    ...(apiEndpoint && { apiEndpoint }),
    authClient: selfSignedJwt('@google-cloud/bigquery', key, ['https://www.googleapis.com/auth/bigquery']) as BigQueryOptions['authClient'],
    autoRetry: false,
    location: c.location,
  });
  // Typed by each package's own copy of @google-cloud/common: the shape is the same.
  bq.interceptors.push(interceptor as unknown as (typeof bq.interceptors)[number]);
  return { bq, projectId: c.projectId, dataset: c.dataset, location: c.location, settings: t.settings };
}

/** BigQuery's column type as a DuckDB type. */
export function bigqueryDuckType(f: Field): string {
  if (f.mode === 'REPEATED') return 'JSON';
  switch (f.type.toUpperCase()) {
    case 'INTEGER': case 'INT64': return 'BIGINT';
    case 'FLOAT': case 'FLOAT64': case 'NUMERIC': case 'BIGNUMERIC': return 'DOUBLE';
    case 'BOOLEAN': case 'BOOL': return 'BOOLEAN';
    case 'DATE': return 'DATE';
    case 'TIMESTAMP': return 'TIMESTAMPTZ';
    case 'DATETIME': return 'TIMESTAMP';
    case 'RECORD': case 'STRUCT': case 'JSON': return 'JSON';
    default: return 'VARCHAR';
  }
}

/** A TIMESTAMP as the client asks for it (int64 microseconds since the epoch) in ISO text. */
function timestampText(v: unknown): unknown {
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) return v;
  const micros = BigInt(v);
  const iso = new Date(Number(micros / 1000n)).toISOString();
  return `${iso.slice(0, 19)}.${String(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n).padStart(6, '0')}Z`;
}

async function execute(b: Target, sql: string, values: ParamValue[], onRows: (rows: unknown[][]) => Promise<void>, signal?: AbortSignal) {
  if (values.some((v) => v === null)) throw badInput('BigQuery parameters cannot be null here: give a value');
  const params = Object.fromEntries(values.map((v, k) => [`p${k + 1}`, v]));
  let job: Job;
  try {
    [job] = await b.bq.createQueryJob({
      query: sql,
      useLegacySql: false,
      ...(values.length && { params }),
      ...(b.dataset && { defaultDataset: { projectId: b.projectId, datasetId: b.dataset } }),
      ...(b.location && { location: b.location }),
      jobTimeoutMs: b.settings.statementTimeoutMs,
    });
  } catch (e) {
    throw googleError(e);
  }
  const stop = () => void bestEffort(job.cancel(), 'Cancelling a BigQuery job');
  signal?.addEventListener('abort', stop, { once: true });
  // An abort while the job was being created has already fired: cancel the job it made.
  if (signal?.aborted) stop();
  try {
    let columns: FetchedColumn[] | null = null;
    let fields: Field[] = [];
    let rowCount = 0;
    let pageToken: string | undefined;
    for (;;) {
      if (signal?.aborted) throw cancelled();
      let rows: RawRow[];
      let response: ResultsResponse;
      try {
        [rows, , response] = (await job.getQueryResults({ autoPaginate: false, skipParsing: true, maxResults: 10_000, pageToken } as never)) as unknown as [RawRow[], unknown, ResultsResponse];
      } catch (e) {
        throw signal?.aborted ? cancelled() : googleError(e);
      }
      if (response.jobComplete === false) {
        // BigQuery itself waits up to 10 s before answering "not yet"; a short pause guards a quick answer.
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      if (!columns) {
        fields = response.schema?.fields ?? [];
        columns = fields.map((f) => ({ name: f.name, duckType: bigqueryDuckType(f) }));
      }
      rowCount += rows.length;
      if (rowCount > b.settings.maxRows) {
        stop();
        throw tooManyRows(b.settings.maxRows);
      }
      if (rows.length) await onRows(rows.map((r) => r.f.map((cell, k) => (fields[k]?.type === 'TIMESTAMP' ? timestampText(cell.v) : cell.v))));
      pageToken = response.pageToken;
      if (!pageToken) break;
    }
    return { columns: columns ?? [], rowCount };
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

export const bigqueryDriver: WarehouseDriver = {
  async test(target) {
    const b = await bigqueryTarget(target);
    await execute(b, 'SELECT 1', [], async () => undefined);
    return { ok: true as const, serverVersion: `BigQuery, project ${b.projectId}${b.location ? ` (${b.location})` : ''}` };
  },

  async browse(target, [schema, table]) {
    const b = await bigqueryTarget(target);
    try {
      if (schema === undefined) {
        const [datasets] = await b.bq.getDatasets();
        return datasets.map((d): BrowseItem => ({ name: d.id!, type: 'schema' }));
      }
      if (table === undefined) {
        const [tables] = await b.bq.dataset(schema).getTables();
        return tables.map((t): BrowseItem => ({ name: t.id!, type: /VIEW/.test(String((t.metadata as { type?: string }).type)) ? 'view' : 'table' })).sort((x, y) => x.name.localeCompare(y.name));
      }
      const [metadata] = (await b.bq.dataset(schema).table(table).getMetadata()) as unknown as [{ schema?: { fields?: Field[] } }];
      return (metadata.schema?.fields ?? []).map((f): BrowseItem => ({ name: f.name, type: 'column', dataType: f.type, nullable: f.mode !== 'REQUIRED' }));
    } catch (e) {
      throw googleError(e);
    }
  },

  parameterNames: (sql) => namedParameters(sql, (n) => `@p${n}`).names,

  async fetch(target, userSql, values, file, signal) {
    const { sql, bound } = bindStatement(userSql, values, (n) => `@p${n}`);
    if (bound.some(Array.isArray) && bound.some((v) => Array.isArray(v) && v.length === 0)) throw new StudioError(422, 'BigQuery cannot type an empty list parameter');
    const b = await bigqueryTarget(target);
    return writeNdjson(file, (write) => execute(b, sql, bound, write, signal));
  },
};
