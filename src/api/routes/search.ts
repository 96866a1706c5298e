import { runSearch, searchBody } from '../../operations/search.js';
import { route, type RouteDef } from '../route.js';
import { searchResultsSchema } from '../../presenters/search.js';

export const searchRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/artifacts/search',
    access: 'search:read',
    doc: {
      summary: 'Search artifacts (hybrid BM25 + vectors, fused)',
      example: { query: 'release notes', limit: 10 },
      response: searchResultsSchema,
    },
    body: 'json',
    request: searchBody,
    handler: async (ctx, _query, body) => {
      ctx.body = await runSearch(ctx, body());
    },
  }),
];
