import { z } from 'zod';
import { Id, IsoDate } from './common';
import { StudioRecord } from './records';

const Name = z.string().trim().min(1, 'Name must not be empty').max(500);
const Description = z.string().max(10_000);
/** SQL text, stored as written; never executed by the catalog. */
const QueryText = z.string().trim().min(1, 'Query must not be empty').max(1_000_000);

export const QueryParameter = z.object({
  name: z.string().trim().min(1).max(200).regex(/^[A-Za-z_][\w]*$/, 'Parameter names are letters, digits and underscores'),
  type: z.enum(['TEXT', 'NUMBER', 'BOOLEAN', 'DATE', 'TIMESTAMP', 'LIST']).default('TEXT'),
  defaultValue: z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.union([z.string().max(10_000), z.number()])).max(1000), z.null()]).default(null),
});
export type QueryParameter = z.infer<typeof QueryParameter>;
const Parameters = z
  .array(QueryParameter)
  .max(200)
  .refine((ps) => new Set(ps.map((p) => p.name)).size === ps.length, 'Parameter names must be unique');

export const BookmarkCreate = z.object({
  name: Name,
  description: Description.default(''),
  query: QueryText,
  connectionId: Id.nullable().optional(),
  parameters: Parameters.optional(),
});
export const BookmarkUpdate = BookmarkCreate.partial().extend({ name: Name.optional(), description: Description.optional() });
export const StoredBookmark = z.object({ query: z.string(), connectionId: Id.nullable().optional(), parameters: z.array(QueryParameter).optional() });
/** A saved query as the catalog answers it: the record, its text and the connection it runs on (none: over the studio's datasets). */
export const BookmarkItem = StudioRecord.extend({ query: z.string(), connectionId: Id.nullable(), parameters: z.array(QueryParameter) });
export type BookmarkItem = z.infer<typeof BookmarkItem>;

export const TemplateCreate = z.object({
  name: Name,
  description: Description.default(''),
  query: QueryText,
  connectionId: Id.nullable().optional(),
  parameters: Parameters.default([]),
});
export const TemplateUpdate = z.object({
  name: Name.optional(),
  description: Description.optional(),
  query: QueryText.optional(),
  connectionId: Id.nullable().optional(),
  parameters: Parameters.optional(),
});
export const StoredTemplate = z.object({
  query: z.string(),
  connectionId: Id.nullable().optional(),
  parameters: z.array(QueryParameter),
  version: z.number().int().min(1),
});
export type StoredTemplate = z.infer<typeof StoredTemplate>;

/** One earlier version of a template, as GET /templates/{id}/history answers it (newest first). */
export const TemplateVersion = z.object({
  version: z.number().int(),
  name: z.string(),
  description: z.string(),
  query: z.string(),
  connectionId: Id.nullable(),
  parameters: z.array(QueryParameter),
  savedAt: IsoDate,
  savedBy: Id.nullable(),
});
export type TemplateVersion = z.infer<typeof TemplateVersion>;

export const EXECUTION_STATUSES = ['queued', 'running', 'success', 'failure', 'cancelled'] as const;

/** A query execution as the data-query calls answer it: its state, what ran, and until when its result is reused. */
export const QueryExecution = z.object({
  queryExecutionId: z.string(),
  id: z.string(),
  status: z.enum(EXECUTION_STATUSES),
  query: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  connectionId: Id.nullable(),
  queryTemplateId: Id.nullable(),
  templateVersion: z.number().int().nullable(),
  datasetId: Id.nullable(),
  recordId: Id.nullable(),
  rowCount: z.number().nullable(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })).nullable(),
  errorMessage: z.string().nullable(),
  /** Always set (the column is not null). */
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  cacheExpiresAt: z.string().nullable(),
  fromCache: z.boolean(),
});
export type QueryExecution = z.infer<typeof QueryExecution>;
