import { z } from 'zod';
import {
  DatasetDownloadFormat,
  UploadReadOptions,
  DatasetCreate,
  DatasetFromQuery,
  WorkbenchBody,
  DatasetUpdate,
  Id,
  DatasetUploadQuery,
  QueryBool,
  StudioError,
  badInput,
  bestEffort,
  downloadFileBase,
  type Access,
  Dataset,
  IsoDate,
  StudioRecord,
  itemOf,
  itemsOf,
  Job,
  SPREADSHEET_SUMMARY,
  SpreadsheetQuery,
  SnapshotQuery,
  datasetSnapshotCalls,
} from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import { answerList, listRoutes } from '../http/record-answers';
import { EXPORT_TYPES, formatAccepted } from '../http/media-types';
import {
  assertUploadReady,
  contentTypeOf,
  createManaged,
  dataOf,
  datasetItem,
  deleteDataset,
  discardRefused,
  listDatasets,
  newAttrs,
  readableData,
  readOptionsOf,
  sandboxForCaller,
  sendData,
  uploadInto,
  uploadNewDataset,
} from '../http/dataset-answers';
import { datasetAttrs, EMPTY_METADATA } from '../services/datasets';
import type { ListOptions, ResourceRow } from '../services/records';
import { UPLOAD_MAX_BYTES, quoteIdent } from '@studio/engine';
import { uploadEachLayer } from '../services/geopackage-layers';

const IdParam = z.object({ id: Id });
const AdminQuery = z.object({ isAdmin: QueryBool.optional() });

/** What the calls answering one dataset declare. */
const datasetAnswer = itemOf(Dataset);
/** An upload's answer: the dataset, and its ingestion job when it runs in the background (Prefer: respond-async). */
const datasetWithJob = z.object({ item: Dataset, job: Job.optional() });

const SAMPLES = { method: 'GET' as const, url: '/v1/datasets/sample', response: itemsOf(Dataset) };

export const datasetRoutes: RouteDef[] = [
  ...listRoutes('/v1/datasets', 'dataset', 'datasets', { own: 'CAT-101', organization: 'CAT-103', shared: 'CAT-104' }, {
    query: z.object({}),
    list: (ctx, scope) => listDatasets(ctx, { ...(ctx.query as unknown as Omit<ListOptions, 'scope'>), scope }),
    item: Dataset,
  }),
  defineRoute({
    spec: ['CAT-102'],
    method: 'GET',
    url: '/v1/datasets/sample',
    summary: 'Sample datasets built from public data',
    tag: 'datasets',
    auth: 'user',
    response: SAMPLES.response,
    handler: async (ctx) => answerList(ctx, () => listDatasets(ctx, { scope: 'samples', sortBy: 'name', sortOrder: 'asc', offset: 0, limit: 1000 }), SAMPLES),
  }),
  defineRoute({
    spec: ['CAT-105'],
    method: 'GET',
    url: '/v1/datasets/{id}',
    response: datasetAnswer,
    summary: 'One dataset with its schema, statistics and status. A live dataset older than its max age starts refreshing (a background job); the answer is its data as it is',
    tag: 'datasets',
    auth: 'user',
    params: IdParam,
    query: AdminQuery,
    resource: { type: 'dataset', param: 'id', action: 'read' },
    handler: async (ctx) => {
      // The refresh is the data's, not this reader's: a failure to start it does not fail the read.
      await bestEffort(ctx.services.refresh.refreshIfStale(ctx.resource!), `Refreshing the stale live dataset ${ctx.resource!.id}`);
      return datasetItem(ctx.services, ctx.resource!, ctx);
    },
  }),
  defineRoute({
    spec: ['CAT-106'],
    method: 'GET',
    url: '/v1/datasets/{id}/data',
    summary: `The stored data: CSV by default; GeoJSON, Parquet (GeoParquet), an Arrow IPC stream, FlatGeobuf, GeoPackage (gpkg) or KML by ?format= or Accept. ${SPREADSHEET_SUMMARY}`,
    tag: 'datasets',
    auth: 'user',
    params: IdParam,
    query: SpreadsheetQuery.extend({ isAdmin: QueryBool.optional(), format: DatasetDownloadFormat.optional(), ...SnapshotQuery.shape }),
    resource: { type: 'dataset', param: 'id', action: 'read' },
    produces: EXPORT_TYPES,
    handler: async (ctx) => {
      const data = await dataOf(ctx.services, ctx.resource!, ctx.query.snapshot);
      return sendData(ctx as RouteContext<unknown, unknown, unknown>, ctx.resource!, ctx.query.format ?? formatAccepted(String(ctx.req.headers.accept ?? '')), undefined, ctx.query.spreadsheet, data);
    },
  }),
  defineRoute(datasetSnapshotCalls.list, { handler: async (ctx) => ({ items: await ctx.services.snapshots.list(ctx.resource!.id) }) }),
  defineRoute({
    method: 'GET',
    url: '/v1/datasets/{id}/rejected-lines',
    summary: 'The lines a "skip bad rows" upload left out, as CSV: line number, column, error, reason and the line as it was',
    tag: 'datasets',
    auth: 'user',
    params: IdParam,
    query: AdminQuery,
    resource: { type: 'dataset', param: 'id', action: 'read' },
    produces: ['text/csv'],
    handler: async (ctx) => {
      const a = readableData(ctx.resource!);
      const lines = await ctx.services.datasets.rejectedLines(a);
      if (!lines) throw new StudioError(404, 'This dataset has no rejected lines', 'Only an upload with skipBadRows=true that left lines out keeps them');
      ctx.reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${downloadFileBase(ctx.resource!.name)}-rejected-lines.csv"`);
      return ctx.reply.send(lines);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/datasets/{id}/preview',
    summary: 'A page of rows of the stored data, for preview tables (offset/limit, at most 10,000 rows a page)',
    tag: 'datasets',
    auth: 'user',
    params: IdParam,
    query: z.object({ offset: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).max(10_000).default(100), isAdmin: QueryBool.optional(), ...SnapshotQuery.shape }),
    resource: { type: 'dataset', param: 'id', action: 'read' },
    response: z.object({ items: z.array(z.record(z.string(), z.unknown())), total: z.number().int(), offset: z.number().int() }),
    handler: async (ctx) => {
      const a = await dataOf(ctx.services, ctx.resource!, ctx.query.snapshot);
      const rows = await ctx.services.datasets.preview(a, { offset: ctx.query.offset, limit: ctx.query.limit });
      return { items: rows, total: a.metadata.rowCount ?? rows.length, offset: ctx.query.offset };
    },
  }),
  defineRoute({
    spec: ['CAT-107'],
    method: 'GET',
    url: '/v1/datasets/{id}/maps',
    summary: 'Maps that use this dataset and that the caller can read',
    tag: 'datasets',
    auth: 'user',
    params: IdParam,
    resource: { type: 'dataset', param: 'id', action: 'read' },
    response: z.object({ items: z.array(StudioRecord) }),
    handler: async (ctx) => {
      const rows = await ctx.services.records.getMany(await ctx.services.records.mapsLinking(ctx.resource!.id));
      const visible: { row: ResourceRow; access: Access }[] = [];
      for (const row of rows) {
        const access = await ctx.services.access.accessOf(ctx.caller, row, ctx.adminMode);
        if (access !== 'none') visible.push({ row, access });
      }
      const items = await ctx.services.records.toWire(visible.map((v) => v.row), (r) => visible.find((v) => v.row.id === r.id)!.access);
      return { items };
    },
  }),
  defineRoute({
    spec: ['CAT-108'],
    method: 'GET',
    url: '/v1/datasets/{id}/query-execution',
    summary: 'How the dataset was last produced: its ingestion or query execution',
    tag: 'datasets',
    auth: 'user',
    params: IdParam,
    resource: { type: 'dataset', param: 'id', action: 'read' },
    response: itemOf(
      z.object({
        queryExecutionId: Id,
        datasetId: Id,
        status: z.enum(['queued', 'running', 'success', 'failure']),
        query: z.unknown(),
        rowCount: z.number().nullish(),
        errorMessage: z.string().nullish(),
        finishedAt: IsoDate.nullish(),
      }),
    ),
    handler: async (ctx) => {
      const a = datasetAttrs(ctx.resource!);
      const state = { new: 'queued', pending: 'running', ready: 'success', error: 'failure' }[a.status];
      return {
        item: {
          queryExecutionId: ctx.resource!.id,
          datasetId: ctx.resource!.id,
          status: state,
          query: a.metadata.query,
          rowCount: a.metadata.rowCount,
          errorMessage: a.metadata.errorMessage,
          finishedAt: a.metadata.ingestedAt,
        },
      };
    },
  }),
  defineRoute({
    spec: ['CAT-109'],
    method: 'POST',
    url: '/v1/datasets',
    response: datasetAnswer,
    summary: 'Create a dataset; with contentType, the answer carries a signed post policy for its data',
    tag: 'datasets',
    auth: 'user',
    body: DatasetCreate,
    status: 201,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.quota.assertCanCreate(caller, 'dataset');
      const b = ctx.body;
      if (b.dataConnectionId) await ctx.services.access.guard(caller, 'data-connection', b.dataConnectionId, 'read', false);
      const attrs = newAttrs(b.type, { dataConnectionId: b.dataConnectionId ?? null, metadata: { ...EMPTY_METADATA, source: b.metadata?.url ?? b.metadata?.source ?? null } });
      const row = await ctx.services.records.create(caller, 'dataset', { name: b.name, description: b.description, attrs: attrs as unknown as Record<string, unknown> });
      await ctx.services.audit.record(caller, 'dataset.create', 'dataset', row.id, { name: row.name, type: b.type });
      const out = await datasetItem(ctx.services, row, ctx);
      if (b.contentType) {
        const policy = ctx.services.policies.issue({ purpose: 'dataset-data', resourceId: row.id, contentType: b.contentType, maxBytes: UPLOAD_MAX_BYTES });
        return { item: { ...out.item, signedPostPolicy: policy } };
      }
      return out;
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/datasets/data',
    response: datasetWithJob,
    summary: 'Upload a file as a new dataset (Studio Data SDK): the body is the file, Content-Type its media type, optionally gzip-encoded; skipArrow=true and skipBadRows=true as for PUT /{id}/data. With Prefer: respond-async the file is stored and ingested by a background job: 202 at once with the dataset pending and its job',
    tag: 'datasets',
    auth: 'user',
    query: DatasetUploadQuery,
    rawBody: true,
    status: 201,
    handler: async (ctx) =>
      uploadNewDataset(ctx as RouteContext<unknown, unknown, unknown>, { name: ctx.query.name, description: ctx.query.description }, { skipArrow: ctx.query.skipArrow, skipBadRows: ctx.query.skipBadRows, read: readOptionsOf(ctx.query) }),
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/datasets/data/layers',
    response: z.object({ items: z.array(z.object({ layer: z.string(), item: Dataset })) }),
    summary: 'Upload a GeoPackage (application/geopackage+sqlite3) as one new dataset a feature layer, or a KML/KMZ as one a folder (the folder path as its layer, "(no folder)" for features outside folders), named "<name>: <layer>" (the layer alone without name); all or nothing: a layer refused leaves no dataset',
    tag: 'datasets',
    auth: 'user',
    transaction: false,
    query: z.object({ name: z.string().trim().min(1).max(400).optional(), description: z.string().max(10_000).default('') }),
    rawBody: true,
    status: 201,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.quota.assertCanCreate(caller, 'dataset');
      const made = await uploadEachLayer(
        {
          tmpDir: ctx.services.datasets.uploadDir,
          datasets: ctx.services.datasets,
          create: (name) => createManaged(ctx.services, caller, { name, description: ctx.query.description }, { via: 'geopackage-layers' }),
          discard: (id) => discardRefused(ctx.services, caller, id),
        },
        ctx.req.body as NodeJS.ReadableStream,
        contentTypeOf(ctx as RouteContext<unknown, unknown, unknown>),
        ctx.req.headers['content-encoding'] as string | undefined,
        ctx.query.name,
      );
      const items = [];
      for (const { layer, row } of made) items.push({ layer, item: (await datasetItem(ctx.services, row, ctx)).item });
      return { items };
    },
  }),
  defineRoute({
    spec: ['CAT-114'],
    method: 'PUT',
    url: '/v1/datasets/{id}/data',
    summary: 'Replace the data of a dataset. It is stored as Parquet and, once ready, an Arrow copy is written for fast Arrow reads; skipArrow=true leaves that copy to the first Arrow read; skipBadRows=true (CSV, TSV) leaves malformed lines out and counts them (metadata.rejectedRows) instead of refusing the file. With Prefer: respond-async the file is stored and ingested by a background job: 202 at once with the dataset pending and its job; the data it replaces stays readable until the job switches to the new',
    tag: 'datasets',
    auth: 'user',
    response: datasetWithJob,
    params: IdParam,
    query: UploadReadOptions.extend({ skipArrow: QueryBool.optional(), skipBadRows: QueryBool.optional(), isAdmin: QueryBool.optional() }),
    rawBody: true,
    resource: { type: 'dataset', param: 'id', action: 'write' },
    handler: async (ctx) => {
      assertUploadReady(ctx.resource!);
      return uploadInto(ctx as RouteContext<unknown, unknown, unknown>, ctx.resource!, { skipArrow: ctx.query.skipArrow, skipBadRows: ctx.query.skipBadRows, read: readOptionsOf(ctx.query) });
    },
  }),
  defineRoute({
    spec: ['CAT-115'],
    method: 'POST',
    url: '/v1/datasets/query',
    response: datasetAnswer,
    summary: 'Create a dataset from a SQL SELECT: over datasets the caller can read (tables: dataset ids or names) on the embedded DuckDB, or with connectionId on that warehouse (a Parquet snapshot of the result)',
    tag: 'datasets',
    auth: 'user',
    transaction: false,
    body: DatasetFromQuery,
    status: 201,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.quota.assertCanCreate(caller, 'dataset');
      if (ctx.body.connectionId) {
        // Pushed down: the warehouse runs the text as written (read-only session), the result lands as Parquet.
        const resource = await ctx.services.access.guardRun(caller, ctx.body.connectionId, false);
        const plan = await ctx.services.executions.connectionPlan(resource, ctx.body.query, {});
        const row = await createManaged(ctx.services, caller, { name: ctx.body.name, description: ctx.body.description }, { query: ctx.body.query, connectionId: resource.id }, ctx.body.live ? { datasetType: 'sql', dataConnectionId: resource.id } : {});
        const ready = await ctx.services.datasets.ingestQuery(row, (file) => plan.produce(file, new AbortController().signal), ctx.body.query);
        return datasetItem(ctx.services, ready, ctx);
      }
      if (ctx.body.live) throw badInput('A live dataset reads a connection: give its connectionId');
      const safe = await sandboxForCaller(ctx.services, caller, ctx.body.query);
      const row = await createManaged(ctx.services, caller, { name: ctx.body.name, description: ctx.body.description }, { query: ctx.body.query });
      const ready = await ctx.services.datasets.ingestQuery(row, (file) => ctx.services.sandbox.copyToParquet(safe, {}, file, { userId: caller.user.id }), ctx.body.query);
      return datasetItem(ctx.services, ready, ctx);
    },
  }),
  defineRoute({
    spec: ['CAT-116'],
    method: 'POST',
    url: '/v1/datasets/{id}/workbench',
    response: datasetAnswer,
    summary: "Replace a dataset's data with the result of a workbench query (workbenchDataSource SQL, or all of tableName)",
    tag: 'datasets',
    auth: 'user',
    transaction: false,
    params: IdParam,
    body: WorkbenchBody,
    resource: { type: 'dataset', param: 'id', action: 'write' },
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const b = ctx.body;
      // A live dataset's query runs on its connection at every refresh: only someone who may run it there sets it (403).
      const live = await ctx.services.refresh.guardQueryChange(caller, ctx.resource!, b.connectionId);
      // The connection the body names is checked first, as an id in the path would be.
      const connection = live ?? (b.connectionId ? await ctx.services.access.guardRun(caller, b.connectionId, false) : null);
      // A warehouse table may be schema-qualified; over datasets, tableName names a dataset.
      const tableRef = b.tableName ? [...(b.connectionId && b.schemaName ? [b.schemaName] : []), b.tableName].map(quoteIdent).join('.') : null;
      const query = b.workbenchDataSource ?? (tableRef ? `SELECT * FROM ${tableRef}` : null);
      if (!query) throw badInput('Either workbenchDataSource or tableName is required');
      const onClaim = async () => {
        await ctx.services.audit.record(caller, 'dataset.workbench', 'dataset', ctx.resource!.id, { query, ...(b.connectionId && { connectionId: b.connectionId }) });
        if (live) await ctx.services.refresh.recordQuerySetter(ctx.resource!.id, caller.user.id);
      };
      let produce: (file: string) => Promise<unknown>;
      if (connection) {
        // On the connection's warehouse (its dialect quotes identifiers with " too), the result as Parquet.
        const plan = await ctx.services.executions.connectionPlan(connection, query, {});
        produce = (file) => plan.produce(file, new AbortController().signal);
      } else {
        const safe = await sandboxForCaller(ctx.services, caller, query);
        produce = (file) => ctx.services.sandbox.copyToParquet(safe, {}, file, { userId: caller.user.id });
      }
      const ready = await ctx.services.datasets.ingestQuery(ctx.resource!, produce, query, { onClaim });
      return datasetItem(ctx.services, ready, ctx);
    },
  }),
  defineRoute({
    spec: ['CAT-003'],
    method: 'PUT',
    url: '/v1/datasets/{id}',
    response: datasetAnswer,
    summary: 'Rename or describe a dataset; administrators in admin mode may change its owner',
    tag: 'datasets',
    auth: 'user',
    params: IdParam,
    query: AdminQuery,
    body: DatasetUpdate,
    resource: { type: 'dataset', param: 'id', action: 'write' },
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const row = await ctx.services.records.update(caller, ctx.resource!, ctx.body, { adminMode: ctx.adminMode });
      await ctx.services.audit.record(caller, ctx.body.ownerId ? 'dataset.transfer' : 'dataset.update', 'dataset', row.id, ctx.body);
      return datasetItem(ctx.services, row, ctx);
    },
  }),
  defineRoute({
    spec: ['CAT-110'],
    method: 'POST',
    url: '/v1/datasets/{id}/clone',
    response: datasetAnswer,
    summary: 'Copy a dataset, its data included, into one owned by the caller',
    tag: 'datasets',
    auth: 'user',
    transaction: false,
    params: IdParam,
    resource: { type: 'dataset', param: 'id', action: 'copy' },
    status: 201,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.quota.assertCanCreate(caller, 'dataset');
      const source = datasetAttrs(ctx.resource!);
      if (source.status === 'pending') throw new StudioError(409, 'Dataset is being ingested; clone it when it is ready');
      let row = await ctx.services.units.run(async () => {
        const copy = await ctx.services.records.clone(caller, ctx.resource!);
        await ctx.services.audit.record(caller, 'dataset.clone', 'dataset', copy.id, { from: ctx.resource!.id });
        return copy;
      });
      // The files are copied outside any transaction (they can be large), then the copy points at them.
      if (source.storageKey) {
        const key = `datasets/${row.id}/${source.storageKey.split('/').pop()}`;
        await ctx.services.datasets.copyFiles(source.storageKey, key);
        row = await ctx.services.records.update(caller, row, { attrs: { ...source, storageKey: key } as unknown as Record<string, unknown> }, { adminMode: false });
      }
      // A copy's query is its copier's: its refreshes run with their rights, not those of who set the original's.
      if (source.datasetType === 'sql') await ctx.services.refresh.recordQuerySetter(row.id, caller.user.id);
      return datasetItem(ctx.services, row, ctx);
    },
  }),
  defineRoute({
    spec: ['CAT-111'],
    method: 'DELETE',
    url: '/v1/datasets/{id}',
    summary: 'Delete a dataset and its stored data',
    tag: 'datasets',
    auth: 'user',
    params: IdParam,
    query: AdminQuery,
    resource: { type: 'dataset', param: 'id', action: 'delete' },
    status: 204,
    handler: async (ctx) => deleteDataset(ctx as RouteContext<unknown, unknown, unknown>, ctx.resource!),
  }),
];
