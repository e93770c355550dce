import { z } from 'zod';
import { SearchGroup, SearchQuery } from '../search';
import { contract } from './contract';

/** The workspace's one search box: records of every kind whose name holds the words, among those the caller reads. */
export const searchCalls = {
  search: contract({
    method: 'GET',
    url: '/v1/search',
    response: z.object({ items: z.array(SearchGroup) }),
    summary: "Records of every kind whose name contains q (any case) that the caller owns, that are shared with them or that belong to their organizations; per kind the newest `limit` and the total. Kinds with no match are left out",
    tag: 'search',
    auth: 'user',
    query: SearchQuery,
  }),
};
