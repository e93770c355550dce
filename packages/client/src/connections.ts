import type { z } from 'zod';
import { executionCalls, gatewayCalls, type BookmarkItem, type ConnectionFields, type DataConnectionBody, type Dataset, type QueryExecution, type StorageListing, type StudioRecord } from '@studio/schema';
import type { HttpClient } from './http';

/** A data connection as the API answers it: the record and its connection fields (secrets never). */
export type DataConnection = StudioRecord & z.infer<typeof ConnectionFields>;
/** A saved query: its text and the connection it runs on (none: over the studio's datasets). */
export type Bookmark = BookmarkItem;
/** One run of a query (catalog §3 query result). */
export type Execution = QueryExecution;
/** One entry of a connection's schema tree. */
export type { SchemaBrowseItem as SchemaEntry } from '@studio/schema';

/** Data connections: create, edit, test, browse, and SQL run on their warehouses. */
export function connectionsClient(c: HttpClient) {
  return {
    get: (id: string) => c.request<{ item: DataConnection }>('GET', `/v1/data-connections/${id}`).then((r) => r.item),
    create: (body: DataConnectionBody) => c.request<{ item: DataConnection }>('POST', '/v1/data-connections', { body }).then((r) => r.item),
    /** Credentials left out are kept; null removes them. */
    update: (id: string, body: DataConnectionBody) => c.request<{ item: DataConnection }>('PUT', `/v1/data-connections/${id}`, { body }).then((r) => r.item),
    /** A saved connection by id, or an unsaved body (5 s connect timeout): the server version, or the warehouse's message (422). */
    test: (target: { connectionId: string } | Omit<DataConnectionBody, 'name'>) => c.call(gatewayCalls.testConnection, { body: target }).then((r) => r.item),
    /** The first `limit` rows of SQL run on the connection's warehouse (its own text; `$name` parameters bound). */
    query: (connectionId: string, query: string, opts: { limit?: number; parameters?: Record<string, unknown>; templateId?: string; signal?: AbortSignal } = {}) =>
      c.call(
        executionCalls.json,
        // A saved template runs by its id (its own text and connection); otherwise the text on the connection.
        { body: { ...(opts.templateId ? { queryTemplateId: opts.templateId } : { connectionId, query }), limit: opts.limit ?? 1000, ...(opts.parameters && { parameters: opts.parameters }) } },
        { headers: { 'cache-control': 'no-cache' }, signal: opts.signal },
      ),
    /** The caller's query executions, newest first (all engines; filter by connectionId on the caller's side). */
    history: (limit = 50) => c.call(executionCalls.list, { query: { limit } }).then((r) => r.items),
    /** A successful execution's result as CSV (an asynchronous one's job has the same id). */
    result: (executionId: string) => c.callRaw(executionCalls.result, { params: { id: executionId } }).then((r) => r.blob()),
    /** A dataset from the warehouse query's result (a Parquet snapshot); `live`: it keeps the query, pipelines over it run on the warehouse. */
    saveAsDataset: (connectionId: string, query: string, name: string, opts: { live?: boolean } = {}) =>
      c.request<{ item: Dataset }>('POST', '/v1/datasets/query', { body: { connectionId, query, name, live: opts.live ?? false } }).then((r) => r.item),
    /** Schemas; the tables of a schema; the columns of schema/table. */
    browse: (id: string, schema?: string, table?: string) => {
      const call = table !== undefined ? gatewayCalls.schemaTable : schema !== undefined ? gatewayCalls.schemaPath : gatewayCalls.schemas;
      return c.call(call, { params: { connection: id, path: schema, table } }).then((r) => r.items);
    },
    /** One level of a storage connection's bucket under `prefix`: folders, then objects. */
    objects: (id: string, prefix = '') => c.request<StorageListing>('GET', `/v1/data-connections/${id}/objects`, { query: prefix ? { prefix } : {} }),
    /** A new dataset from an object of a storage connection (ready, or the ingestion error). */
    importObject: (id: string, body: { key: string; name?: string; description?: string }) =>
      c.request<{ item: Dataset }>('POST', `/v1/data-connections/${id}/import`, { body }).then((r) => r.item),
  };
}

/** Query templates (catalog §3): SQL with declared parameters, versioned. */
export function templatesClient(c: HttpClient) {
  return {
    /** A query template: the text with {{name}} (or $name) parameters, each declared. */
    create: (body: { name: string; query: string; connectionId?: string | null; parameters: { name: string; type?: 'TEXT' | 'NUMBER' | 'BOOLEAN' | 'DATE' | 'TIMESTAMP' | 'LIST' }[] }) =>
      c.request<{ item: StudioRecord & { query: string; version: number } }>('POST', '/v1/data-queries/templates', { body }).then((r) => r.item),
  };
}

/** Saved queries (bookmarks). */
export function bookmarksClient(c: HttpClient) {
  return {
    get: (id: string) => c.request<{ item: Bookmark }>('GET', `/v1/data-queries/bookmarks/${id}`).then((r) => r.item),
    create: (body: { name: string; query: string; connectionId?: string | null; description?: string }) =>
      c.request<{ item: Bookmark }>('POST', '/v1/data-queries/bookmarks', { body }).then((r) => r.item),
  };
}
