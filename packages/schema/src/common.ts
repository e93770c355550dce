import { z } from 'zod';

/** Record ids are UUIDs everywhere; a malformed id is bad input (422), never a 500. */
export const Id = z.uuid();
export const IsoDate = z.string();

export const ErrorBody = z.object({
  appStatusCode: z.number().int(),
  message: z.string(),
  details: z.string().optional(),
  /** The request's id, also in the X-Request-Id header and the server's log lines. */
  requestId: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Lists page with offset/limit; limit is capped so one call cannot ask for the whole catalog. */
export const MAX_PAGE_LIMIT = 1000;
export const DEFAULT_PAGE_LIMIT = 100;
export const Paging = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(DEFAULT_PAGE_LIMIT),
});
export type Paging = z.infer<typeof Paging>;

/** Query-string booleans arrive as text. */
export const QueryBool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', ''])])
  .transform((v) => v === true || v === 'true' || v === '1');

export const itemOf = <T extends z.ZodType>(t: T) => z.object({ item: t });
export const itemsOf = <T extends z.ZodType>(t: T) =>
  z.object({ items: z.array(t), total: z.number().int().optional() });
/** A list answer of `T`s as `itemsOf` declares it. */
export type ItemsOf<T> = z.output<ReturnType<typeof itemsOf<z.ZodType<T>>>>;

export const Timestamps = z.object({ createdAt: IsoDate, updatedAt: IsoDate });
