import { z } from 'zod';
import { StudioRecord } from './records';

/** What the workspace search looks through, in the order its groups are shown. */
export const SEARCH_KINDS = ['map', 'insight', 'workbook', 'project', 'dataset', 'data-connection', 'query-bookmark', 'map-style', 'color-palette'] as const;
export const SearchKind = z.enum(SEARCH_KINDS);
export type SearchKind = z.infer<typeof SearchKind>;

export const SearchQuery = z.object({
  q: z.string().trim().min(1, 'Type a word to search for').max(200),
  /** Records per kind. */
  limit: z.coerce.number().int().min(1).max(50).default(5),
});

/** One kind's matches: the first `limit` (newest change first) and how many there are. */
export const SearchGroup = z.object({ kind: SearchKind, total: z.number().int(), items: z.array(StudioRecord) });
export type SearchGroup = z.infer<typeof SearchGroup>;
