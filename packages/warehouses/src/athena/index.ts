import type { AthenaClient, GetQueryResultsOutput } from '@aws-sdk/client-athena';
import { CONNECTION_CONFIGS, StudioError, badInput, bestEffort, onFirstUse } from '@studio/schema';
import { awsClientOptions, awsError } from '../aws';
import { cancelled, writeNdjson, tooManyRows, type BrowseItem, type DriverTarget, type FetchedColumn, type ParamValue, type WarehouseDriver } from '../driver';
import { bindStatement, namedParameters } from '../parameters';
import { duckTypeOf } from '../trino';
import { trinoLiteral } from '../trino/literals';

/**
 * Amazon Athena through the AWS SDK's Athena client: StartQueryExecution (the workgroup, catalog and
 * database of the connection, its output location), GetQueryExecution until the query ends,
 * GetQueryResults page by page (the first row of a SELECT's first page is its header), StopQueryExecution
 * on abort. Parameters are Athena's ExecutionParameters (`?`, each value a typed literal, as Trino's own).
 * Browsing uses the Data Catalog calls (ListDatabases, ListTableMetadata, GetTableMetadata).
 */

const POLL_MS = 250;

/** The AWS SDK's Athena client, loaded on the first call of an Athena connection. */
const athenaSdk = onFirstUse(() => import('@aws-sdk/client-athena'));

interface Target {
  client: AthenaClient;
  sdk: Awaited<ReturnType<typeof athenaSdk>>;
  workgroup: string;
  catalog: string;
  database?: string;
  outputLocation?: string;
  settings: DriverTarget['settings'];
}

async function athenaTarget(t: DriverTarget): Promise<Target> {
  const parsed = CONNECTION_CONFIGS.athena.safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const c = parsed.data;
  const sdk = await athenaSdk();
  const client = new sdk.AthenaClient(await awsClientOptions(t, 'athena', c.region, c.endpoint, { allowAnonymous: false }));
  return { client, sdk, workgroup: c.workgroup ?? 'primary', catalog: c.catalog ?? 'AwsDataCatalog', database: c.database, outputLocation: c.outputLocation, settings: t.settings };
}

async function withTarget<T>(t: DriverTarget, fn: (a: Target) => Promise<T>): Promise<T> {
  const a = await athenaTarget(t);
  try {
    return await fn(a);
  } catch (e) {
    throw awsError(e);
  } finally {
    a.client.destroy();
  }
}

/** Runs a query to its end, hands each page of rows to `onRows`; answers the columns and row count. */
async function execute(a: Target, sql: string, values: ParamValue[], onRows: (rows: (string | null)[][]) => Promise<void>, signal?: AbortSignal) {
  const started = await a.client.send(
    new a.sdk.StartQueryExecutionCommand({
      QueryString: sql,
      WorkGroup: a.workgroup,
      QueryExecutionContext: { Catalog: a.catalog, ...(a.database && { Database: a.database }) },
      ...(a.outputLocation && { ResultConfiguration: { OutputLocation: a.outputLocation } }),
      ...(values.length && { ExecutionParameters: values.map(trinoLiteral) }),
    }),
    // Not aborted mid-call: Athena may have started the query by then, and only its id lets us stop it.
  );
  const id = started.QueryExecutionId!;
  const stop = () => void bestEffort(a.client.send(new a.sdk.StopQueryExecutionCommand({ QueryExecutionId: id })), `Stopping Athena query ${id}`);
  signal?.addEventListener('abort', stop, { once: true });
  // An abort while the query was being started has already fired: stop the query it started.
  if (signal?.aborted) {
    stop();
    throw cancelled();
  }
  const deadline = Date.now() + a.settings.statementTimeoutMs;
  try {
    for (;;) {
      if (signal?.aborted) throw cancelled();
      const q = (await a.client.send(new a.sdk.GetQueryExecutionCommand({ QueryExecutionId: id }))).QueryExecution;
      const state = q?.Status?.State;
      if (state === 'SUCCEEDED') break;
      if (state === 'CANCELLED') throw cancelled();
      if (state === 'FAILED') throw new StudioError(422, q?.Status?.AthenaError?.ErrorMessage ?? q?.Status?.StateChangeReason ?? 'The query failed', q?.Status?.AthenaError?.ErrorCategory === 2 ? 'USER_ERROR' : undefined);
      if (Date.now() > deadline) {
        stop();
        throw new StudioError(422, `The query ran longer than ${a.settings.statementTimeoutMs} ms and was cancelled`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    let columns: FetchedColumn[] | null = null;
    let rowCount = 0;
    let token: string | undefined;
    let first = true;
    do {
      if (signal?.aborted) throw cancelled();
      const page: GetQueryResultsOutput = await a.client.send(new a.sdk.GetQueryResultsCommand({ QueryExecutionId: id, NextToken: token, MaxResults: 1000 }));
      columns ??= (page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((c) => ({ name: c.Name ?? '', duckType: duckTypeOf(c.Type ?? 'varchar') }));
      let rows = (page.ResultSet?.Rows ?? []).map((r) => (r.Data ?? []).map((d) => d.VarCharValue ?? null));
      // A SELECT's first page starts with the column names as a row.
      if (first && rows.length && columns.length && rows[0]!.every((v, k) => v === columns![k]?.name)) rows = rows.slice(1);
      first = false;
      rowCount += rows.length;
      if (rowCount > a.settings.maxRows) throw tooManyRows(a.settings.maxRows);
      if (rows.length) await onRows(rows);
      token = page.NextToken;
    } while (token);
    return { columns: columns ?? [], rowCount };
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

export const athenaDriver: WarehouseDriver = {
  test: (target) =>
    withTarget(target, async (a) => {
      const wg = await a.client.send(new a.sdk.GetWorkGroupCommand({ WorkGroup: a.workgroup }));
      // A query too: the output location and the permissions to run are what a first query needs.
      await execute(a, 'SELECT 1', [], async () => undefined);
      const engine = wg.WorkGroup?.Configuration?.EngineVersion?.EffectiveEngineVersion;
      return { ok: true as const, serverVersion: `Amazon Athena${engine ? ` (${engine})` : ''}, workgroup ${a.workgroup}` };
    }),

  browse: (target, [schema, table]) =>
    withTarget(target, async (a): Promise<BrowseItem[]> => {
      if (schema === undefined) {
        const items: BrowseItem[] = [];
        let token: string | undefined;
        do {
          const r = await a.client.send(new a.sdk.ListDatabasesCommand({ CatalogName: a.catalog, NextToken: token }));
          items.push(...(r.DatabaseList ?? []).map((d): BrowseItem => ({ name: d.Name!, type: 'schema' })));
          token = r.NextToken;
        } while (token);
        return items;
      }
      if (table === undefined) {
        const items: BrowseItem[] = [];
        let token: string | undefined;
        do {
          const r = await a.client.send(new a.sdk.ListTableMetadataCommand({ CatalogName: a.catalog, DatabaseName: schema, NextToken: token }));
          items.push(...(r.TableMetadataList ?? []).map((m): BrowseItem => ({ name: m.Name!, type: /VIEW/i.test(m.TableType ?? '') ? 'view' : 'table' })));
          token = r.NextToken;
        } while (token);
        return items.sort((x, y) => x.name.localeCompare(y.name));
      }
      const r = await a.client.send(new a.sdk.GetTableMetadataCommand({ CatalogName: a.catalog, DatabaseName: schema, TableName: table }));
      const m = r.TableMetadata;
      return [...(m?.Columns ?? []), ...(m?.PartitionKeys ?? [])].map((c): BrowseItem => ({ name: c.Name!, type: 'column', dataType: c.Type, nullable: true }));
    }),

  parameterNames: (sql) => namedParameters(sql, () => '?').names,

  async fetch(target, userSql, values, file, signal) {
    const { sql, bound } = bindStatement(userSql, values, () => '?');
    return withTarget(target, async (a) => {
      return writeNdjson(file, (write) => execute(a, sql, bound, write, signal));
    });
  },
};
