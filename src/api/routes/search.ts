import { runSearch, searchBody } from '../../operations/search.js';
import { parse } from '../validate.js';
import type { RouteDef } from '../route.js';

export const searchRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/artifacts/search',
    access: 'search:read',
    body: 'json',
    handler: async (ctx) => {
      ctx.body = await runSearch(ctx, parse(searchBody, ctx.state.body, 'body'));
    },
  },
];
