import { z } from 'zod';
import type { RawBody } from '../middleware/body.js';
import { listImportItems, listImports, requestImport, visibleImport } from '../../operations/imports.js';
import { importItemSchema, importSchema, presentImport, presentImportItem } from '../../presenters/imports.js';
import { presentPage } from '../../presenters/index.js';
import { page } from '../../presenters/schemas.js';
import { importDocument } from '../../imports/request.js';
import { outcomeStatuses } from '../../store/imports.js';
import { byStatus } from '../openapi/responses.js';
import { route, type RouteDef } from '../route.js';
import { idempotencyKeyOf, idParam, pageQuery, parse } from '../validate.js';

const itemsQuery = pageQuery.extend({ status: z.enum(outcomeStatuses).optional() });

export const importRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/workspaces/:id/imports',
    access: 'artifact:write',
    doc: {
      summary: 'Import many documents or files into a workspace',
      description:
        'Brings documents in as drafts, in a durable workflow: a JSON array (or NDJSON) of documents shaped like POST /artifacts with an optional `key`, URLs to fetch, or multipart files (Markdown, plain text, HTML, PDF, JSON). Each item key makes one artifact per workspace, however often it is imported. Answers 202 with the import; follow it at GET /imports/{id}.',
      status: 202,
      errors: [409],
      response: byStatus({ 202: importSchema, 200: importSchema }),
      example: [{ key: 'handbook/intro', title: 'Introduction', content_type: 'text/markdown', content: '# Introduction' }],
    },
    body: 'import',
    request: z.array(importDocument),
    handler: async (ctx, _query) => {
      const { id } = parse(idParam, ctx.params, 'path');
      const { created, doc } = await requestImport(ctx, id, ctx.state.body as RawBody, idempotencyKeyOf(ctx) ?? null);
      ctx.status = created ? 202 : 200;
      ctx.set('Location', `/imports/${doc._id}`);
      ctx.body = presentImport(doc);
    },
  }),
  route({
    method: 'get',
    path: '/workspaces/:id/imports',
    access: 'artifact:read',
    doc: { summary: "List a workspace's imports, newest first", response: page(importSchema) },
    query: pageQuery,
    handler: async (ctx, q) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.body = presentPage(await listImports(ctx, id, q.limit, q.cursor), presentImport);
    },
  }),
  {
    method: 'get',
    path: '/imports/:id',
    access: 'artifact:read',
    doc: { summary: "An import's state and progress (items done, created, skipped, failed, remaining)", response: importSchema },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.body = presentImport(await visibleImport(ctx, id));
    },
  },
  route({
    method: 'get',
    path: '/imports/:id/items',
    access: 'artifact:read',
    doc: {
      summary: "An import's report: each item's outcome, in item order (status=failed: what went wrong)",
      response: page(importItemSchema),
    },
    query: itemsQuery,
    handler: async (ctx, q) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.body = presentPage(await listImportItems(ctx, id, q.status, q.limit, q.cursor), presentImportItem);
    },
  }),
];
