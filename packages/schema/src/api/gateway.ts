import { z } from 'zod';
import { Id, itemOf } from '../common';
import { ConnectionTestResult, DataConnectionBody, SchemaBrowseItem } from '../connections';
import { contract } from './contract';

/** An unsaved connection body needs no name to be tested. */
const TestBody = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && !('connectionId' in v) && !('name' in v) ? { ...v, name: 'unsaved' } : v),
  z.union([z.object({ connectionId: Id }).strict(), DataConnectionBody]),
);

export const SchemaParams = z.object({ connection: Id, path: z.string().min(1).max(2000).optional(), table: z.string().min(1).max(1000).optional() });

const schemaCall = (url: string, spec: string | null, summary: string) =>
  contract({
    spec: spec ? [spec] : [],
    method: 'GET',
    url,
    summary,
    tag: 'data-queries',
    auth: 'user',
    params: SchemaParams,
    query: z.object({ isAdmin: z.string().optional() }),
    resource: { type: 'data-connection', param: 'connection', action: 'read' },
    response: z.object({ items: z.array(SchemaBrowseItem) }),
  });

/** Data gateway (catalog §7): test a connection (warehouse or storage), browse a warehouse's schemas. */
export const gatewayCalls = {
  testConnection: contract({
    spec: ['GTW-004'],
    method: 'POST',
    url: '/v1/test-connection',
    summary: 'Connect to a saved ({connectionId}) or unsaved connection (5 s timeout): {ok, serverVersion}, or 422 with the driver message',
    tag: 'gateway',
    auth: 'user',
    body: TestBody,
    response: itemOf(ConnectionTestResult),
  }),
  schemas: schemaCall('/v1/data-queries/schema/{connection}', 'DQ-016', 'Schemas of a database connection (its information_schema)'),
  schemaPath: schemaCall('/v1/data-queries/schema/{connection}/{path}', 'DQ-017', 'Tables of a schema (path = schema) or columns of a table (path = schema/table, slash encoded)'),
  schemaTable: schemaCall('/v1/data-queries/schema/{connection}/{path}/{table}', null, 'Columns of a table: schema/table written as two path segments'),
};
