import { SEARCH_KINDS, searchCalls, type ResourceType, type SearchGroup, type SearchKind } from '@studio/schema';
import { defineRoute, requireCaller, type RouteDef } from '../http/route';

/** Each kind the search answers as the record type it lists, and for map assets the asset type. */
const SOURCES: Record<SearchKind, { type: ResourceType; attrs?: Record<string, string[]> }> = {
  map: { type: 'map' },
  insight: { type: 'insight' },
  workbook: { type: 'workbook' },
  project: { type: 'project' },
  dataset: { type: 'dataset' },
  'data-connection': { type: 'data-connection' },
  'query-bookmark': { type: 'query-bookmark' },
  'map-style': { type: 'map-asset', attrs: { assetType: ['map-style'] } },
  'color-palette': { type: 'map-asset', attrs: { assetType: ['color-palette'] } },
};

/** The workspace's one search box: records of every kind whose name holds the words, among those the caller reads. */
export const searchRoutes: RouteDef[] = [
  defineRoute(searchCalls.search, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const groups = await Promise.all(
        SEARCH_KINDS.map(async (kind): Promise<SearchGroup> => {
          const { type, attrs } = SOURCES[kind];
          const page = await ctx.services.records.list(caller, type, { scope: 'readable', search: ctx.query.q, attrs, sortBy: 'updatedAt', sortOrder: 'desc', offset: 0, limit: ctx.query.limit });
          return { kind, total: page.total, items: page.items };
        }),
      );
      return { items: groups.filter((g) => g.total > 0) };
    },
  }),
];
