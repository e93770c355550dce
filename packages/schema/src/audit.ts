import { z } from 'zod';
import { Id, IsoDate, Paging } from './common';

/** What the audit log can be narrowed to (ADM-004); every field is optional and they combine with "and". */
export const AuditLogFilter = z.object({
  actorId: Id.optional(),
  /** Who did it, by email (exact, any case). */
  actorEmail: z.string().trim().toLowerCase().max(320).optional(),
  resourceType: z.string().trim().max(50).optional(),
  resourceId: z.string().trim().max(100).optional(),
  /** One action ("map.publish") or a family of them ("map" matches every map.* action). */
  action: z.string().trim().max(100).optional(),
  /** First and last day (UTC, both included). */
  from: z.iso.date('From must be a date (YYYY-MM-DD)').optional(),
  to: z.iso.date('To must be a date (YYYY-MM-DD)').optional(),
});
export type AuditLogFilter = z.infer<typeof AuditLogFilter>;

/** The audit log's query: a filter, a page, and the answer's format (CSV answers every matching entry, up to AUDIT_EXPORT_MAX). */
export const AuditLogQuery = Paging.extend(AuditLogFilter.shape).extend({
  sortBy: z.enum(['date', 'views']).default('date'),
  format: z.enum(['json', 'csv']).default('json'),
});

/** The most entries one CSV export holds; narrow the filter for more. */
export const AUDIT_EXPORT_MAX = 100_000;

export const AuditEntry = z.object({
  id: z.string(),
  actorId: Id.nullable(),
  actorEmail: z.string().nullable(),
  action: z.string(),
  resourceType: z.string(),
  resourceId: z.string().nullable(),
  details: z.unknown(),
  at: IsoDate,
});
export type AuditEntry = z.infer<typeof AuditEntry>;
