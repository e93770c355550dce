import { quoteLiteral } from '@studio/engine';
import { StudioError, badInput } from '@studio/schema';
import { WAREHOUSE_DIALECTS, compilePipeline, duckdbSql, validatePipeline } from '@studio/pipeline';
import type { ResourceRow } from './records';
import { storedConnection } from './connections';
import { datasetAttrs } from './datasets';
import type { Engine } from '@studio/engine';
import type { Caller } from '../http/caller';
import type { AccessService } from './access';
import type { ExecutionService } from './executions';
import { TEMP_VIEW_NAME, type TempViews } from './temp-views';
import { tileResolverFor } from './hextiles';

/** What compiling a pipeline for a caller uses: access checks, the engine, live queries' results and temp views. */
export interface PipelineDeps {
  access: AccessService;
  engine: Engine;
  executions: ExecutionService;
  tempViews: TempViews;
}

/** Every dataset a pipeline reads, by uuid, wherever in the tree it is named. */
export function datasetsOf(node: unknown, out = new Set<string>()): Set<string> {
  if (!node || typeof node !== 'object') return out;
  const n = node as Record<string, unknown>;
  if (n.type === 'dataset' && typeof n.uuid === 'string') out.add(n.uuid);
  if (n.type === 'enrich') {
    const source = n.sourceId ?? n.source;
    if (typeof source === 'string') out.add(source);
  }
  if (Array.isArray(n.input)) for (const child of n.input) datasetsOf(child, out);
  return out;
}


/** A dataset a pipeline reads, checked against its reader, with its local file once it is ready. */
interface DatasetRead {
  attrs: ReturnType<typeof datasetAttrs>;
  path: string | null;
}

/**
 * The dataset reads of one request, shared by the pipelines it compiles (a dashboard's widgets read the
 * same dataset many times): each dataset is checked and located once per reader.
 */
export type DatasetReads = Map<string, Promise<DatasetRead>>;

async function readDataset(services: PipelineDeps, caller: Caller, uuid: string): Promise<DatasetRead> {
  const { resource } = await services.access.guard(caller, 'dataset', uuid, 'read', false);
  const attrs = datasetAttrs(resource);
  const path = attrs.status === 'ready' && attrs.storageKey ? await services.engine.store.localPath(attrs.storageKey) : null;
  return { attrs, path };
}

function readOnce(services: PipelineDeps, caller: Caller, uuid: string, reads: DatasetReads | undefined): Promise<DatasetRead> {
  if (!reads) return readDataset(services, caller, uuid);
  const key = `${caller.user.id}:${uuid}`;
  let read = reads.get(key);
  if (!read) reads.set(key, (read = readDataset(services, caller, uuid)));
  return read;
}

/**
 * Checks the caller may read every dataset before anything runs, then compiles the pipeline with
 * each dataset resolved to its Parquet file. `datasetVersions` names each dataset read with its storage
 * key, which changes whenever its data does (a cache key that needs no invalidation). With `pushDown`,
 * a pipeline whose datasets are all live datasets of one connection is compiled for that warehouse instead
 * (`pushDown` in the answer; see pushDownOf). `reads` shares dataset checks between the pipelines of one request.
 */
export async function compileForCaller(services: PipelineDeps, caller: Caller, body: unknown, opts: { pushDown?: boolean; reads?: DatasetReads } = {}) {
  const node = validatePipeline(body);
  const paths = new Map<string, string>();
  const temps = new Map<string, string>();
  const live = new Map<string, { connectionId: string; query: string }>();
  const datasetVersions: string[] = [];
  const pending: string[] = [];
  for (const uuid of datasetsOf(node)) {
    if (TEMP_VIEW_NAME.test(uuid)) {
      temps.set(uuid, services.tempViews.relationOf(caller.user.id, uuid));
      continue;
    }
    const { attrs: a, path } = await readOnce(services, caller, uuid, opts.reads);
    if (a.datasetType === 'sql' && a.dataConnectionId && a.metadata.query) live.set(uuid, { connectionId: a.dataConnectionId, query: a.metadata.query });
    if (!path) {
      pending.push(`Dataset ${uuid} is not ready (status: ${a.status})`);
      continue;
    }
    paths.set(uuid, path);
    datasetVersions.push(`${uuid}@${a.storageKey}`);
  }
  // Hex-tile datasets (hexTile, tileExtract, tileQuantiles nodes): guarded the same way, read from their archives.
  const tiles = await tileResolverFor(services, caller, node);
  const queries = pending.length ? new Map<string, string>() : await fetchDatabaseQueries(services, caller, node);
  if (opts.pushDown && !temps.size && !tiles && !queries.size && live.size && live.size === paths.size + pending.length) {
    const pushDown = await pushDownOf(services, caller, node, live);
    if (pushDown) return { pushDown, sql: '', params: [] as unknown[], datasetVersions };
  }
  if (pending.length) throw new StudioError(409, pending[0]!);
  const compiled = compilePipeline(node, {
    dialect: 'duckdb',
    ...(tiles && { resolveTiles: tiles.resolve }),
    resolveQuery: (n) => ({ relationSql: queries.get(queryKey(n))! }),
    resolveDataset: (uuid) => {
      const temp = temps.get(uuid);
      if (temp) return { relationSql: temp };
      const p = paths.get(uuid);
      if (!p) throw badInput(`Unknown dataset ${uuid}`);
      return { relationSql: `read_parquet(${quoteLiteral(p)})` };
    },
  });
  // A join on a spatial predicate is planned here, once, for every consumer (streams, temporary views, widgets):
  // the planner turns it into an indexed equi-join instead of DuckDB's nested loop of predicate calls.
  if (compiled.spatialJoins) {
    const sql = await services.engine.withConnection((c) => duckdbSql(c, compiled));
    return { sql, params: compiled.params, pushDown: null, datasetVersions };
  }
  return { ...compiled, pushDown: null, datasetVersions };
}

type DatabaseQuery = { connectionId: string; query: string; params?: string[] };
const queryKey = (n: DatabaseQuery) => JSON.stringify([n.connectionId, n.query, n.params ?? []]);

function databaseQueriesOf(node: unknown, out: DatabaseQuery[] = []): DatabaseQuery[] {
  if (!node || typeof node !== 'object') return out;
  const n = node as Record<string, unknown> & { input?: unknown[] };
  if (n.type === 'databaseQuery') out.push(n as unknown as DatabaseQuery);
  for (const child of n.input ?? []) databaseQueriesOf(child, out);
  return out;
}

/**
 * Runs each databaseQuery node of the pipeline on its connection (the caller must be allowed to run
 * queries there) and keeps its rows as a temporary view of the caller: the relation the compiled pipeline
 * reads, removed with the view 60 s later. `params` bind the query's parameters in the order they appear.
 */
async function fetchDatabaseQueries(services: PipelineDeps, caller: Caller, node: unknown): Promise<Map<string, string>> {
  const relations = new Map<string, string>();
  for (const n of databaseQueriesOf(node)) {
    const key = queryKey(n);
    if (relations.has(key)) continue;
    const connection = await services.access.guardRun(caller, n.connectionId, false);
    const names = services.executions.driverOf(connection).driver.parameterNames(n.query);
    const params = n.params ?? [];
    if (params.length !== names.length) {
      throw badInput(`databaseQuery node: the query has ${names.length} parameter${names.length === 1 ? '' : 's'} (${names.join(', ') || 'none'}); params gives ${params.length}`);
    }
    const plan = await services.executions.connectionPlan(connection, n.query, Object.fromEntries(names.map((name, i) => [name, params[i]!])));
    const view = await services.tempViews.createWith(caller.user.id, (file) => plan.produce(file, new AbortController().signal));
    relations.set(key, services.tempViews.relationOf(caller.user.id, view.name));
  }
  return relations;
}

/** A pipeline that runs on a warehouse: its compiled text ({{pN}} placeholders) and values, and the connection. */
export interface PushDown {
  connection: ResourceRow;
  sql: string;
  values: Record<string, unknown>;
}

/**
 * The pipeline pushed down to the warehouse its datasets live on, when every dataset it reads is a live
 * dataset (type `sql`) of one connection the caller may still read: each dataset becomes its own query as
 * a named subquery, the pipeline is compiled in that warehouse's dialect. Otherwise null: the pipeline runs
 * on the studio's engine over the datasets' snapshots (mixed sources, temporary views, hex tiles).
 */
async function pushDownOf(services: PipelineDeps, caller: Caller, node: ReturnType<typeof validatePipeline>, live: Map<string, { connectionId: string; query: string }>): Promise<PushDown | null> {
  const connections = new Set([...live.values()].map((l) => l.connectionId));
  if (connections.size !== 1) return null;
  // Whoever reads the dataset runs its query on the connection only while they may read the connection.
  const connection = await services.access.guardRun(caller, [...connections][0]!, false);
  const dialect = WAREHOUSE_DIALECTS[storedConnection(connection)?.type ?? ''];
  if (!dialect) return null;
  const names = [...live.keys()];
  const compiled = compilePipeline(node, {
    dialect,
    // PostgreSQL and others want every subquery in FROM named.
    resolveDataset: (uuid) => ({ relationSql: `(${live.get(uuid)!.query.replace(/[\s;]+$/, '')}) AS ${dialect.quoteIdent(`live_${names.indexOf(uuid)}`)}` }),
  });
  return { connection, sql: compiled.sql, values: Object.fromEntries(compiled.params.map((v, k) => [`p${k + 1}`, v])) };
}
