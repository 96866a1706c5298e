import { problems } from '../../kernel/errors/problem.js';
import type { AppContext } from '../context.js';
import { documentSchema, openapiJson } from '../openapi/document.js';
import { referenceAssets, referenceCsp, referencePage } from '../openapi/reference-page.js';
import { mountedRoutes, type RouteDef } from '../route.js';

function secure(ctx: AppContext): void {
  ctx.set('Content-Security-Policy', referenceCsp(ctx.services.config.apiUri));
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

/** `GET /openapi.json` (the route table this app was mounted with, as OpenAPI 3.1) and the reference page at `/docs`. */
export const openapiRoutes: RouteDef[] = [
  {
    method: 'get',
    path: '/openapi.json',
    access: 'public',
    doc: {
      summary: 'This API as an OpenAPI 3.1 document',
      tags: ['reference'],
      responseDescription: 'The OpenAPI 3.1 document',
      response: documentSchema,
    },
    handler: (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = openapiJson(mountedRoutes(ctx.router), ctx.services.config.apiUri);
    },
  },
  {
    method: 'get',
    path: '/docs',
    access: 'public',
    doc: { summary: 'The API reference, rendered', tags: ['reference'], produces: 'text/html' },
    handler: (ctx) => {
      secure(ctx);
      ctx.set('Cache-Control', 'no-cache');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = referencePage;
    },
  },
  {
    method: 'get',
    path: '/docs/:file',
    access: 'public',
    doc: { summary: "The reference page's scripts and stylesheet", tags: ['reference'], produces: 'text/javascript' },
    handler: async (ctx) => {
      // Looked up by the name exactly as sent: `..`, `%2f` or any other file match nothing.
      const asset = (await referenceAssets()).get(ctx.params.file!);
      if (!asset) throw problems.notFound('reference file');
      secure(ctx);
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.type = asset.type;
      ctx.body = asset.body;
    },
  },
];
