import { z } from 'zod';
import {
  artifactPatchInput,
  createArtifact,
  createArtifactInput,
  deleteArtifact,
  etagOf,
  ifMatch,
  updateArtifact,
} from '../../operations/artifacts.js';
import { listArtifacts, readArtifact } from '../../operations/artifact-list.js';
import { moveArtifact } from '../../operations/artifact-move.js';
import { artifactReadSchema, artifactSchema, presentArtifact, presentPage } from '../../presenters/index.js';
import { pageQuery } from '../validate.js';
import { artifactId } from '../artifact-access.js';
import { route, type RouteDef } from '../route.js';
import { uuid } from '../../kernel/json/schemas.js';
import { page } from '../../presenters/schemas.js';

const listQuery = pageQuery.extend({
  collection_id: uuid().optional(),
  content_type: z.string().min(1).optional(),
});
const moveBody = z.strictObject({ after_id: uuid('must be a UUID or null').nullable() });

export const artifactRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/artifacts',
    access: 'artifact:write',
    doc: {
      summary: 'Create a draft artifact in a workspace',
      description:
        "A type a workspace server defines is first offered to that server's on_create (SPEC §4.6): it may refuse (400 rejected-by-type-server) or not answer in time (503 type-server-unavailable); either way nothing is stored.",
      status: 201,
      errors: [409, 503],
      example: { title: 'Notes', content_type: 'text/markdown', content: '# Notes', collection_id: '0190c1d2-7a4b-7c3d-8e9f-0a1b2c3d4e5f' },
      response: artifactSchema,
    },
    body: 'json',
    request: createArtifactInput,
    handler: async (ctx, _query, body) => {
      const doc = await createArtifact(ctx, body());
      ctx.status = 201;
      ctx.set('Location', `/artifacts/${doc._id}`);
      ctx.set('ETag', etagOf(doc.revision));
      ctx.body = presentArtifact(doc);
    },
  }),
  route({
    method: 'get',
    path: '/artifacts',
    access: 'artifact:read',
    doc: { summary: 'List artifacts you can read', response: page(artifactSchema) },
    query: listQuery,
    handler: async (ctx, q) => {
      const page = await listArtifacts(ctx, {
        collectionId: q.collection_id,
        contentType: q.content_type,
        limit: q.limit,
        cursor: q.cursor,
      });
      ctx.body = presentPage(page, presentArtifact);
    },
  }),
  {
    method: 'get',
    path: '/artifacts/:id',
    access: 'artifact:read',
    doc: { summary: 'Read an artifact (ETag: its revision)', response: artifactReadSchema },
    handler: async (ctx) => {
      const found = await readArtifact(ctx, artifactId(ctx));
      if ('described' in found) ctx.body = found.described;
      else {
        ctx.set('ETag', etagOf(found.doc.revision));
        ctx.body = presentArtifact(found.doc);
      }
    },
  },
  route({
    method: 'patch',
    path: '/artifacts/:id',
    access: 'artifact:write',
    doc: {
      summary: 'Edit a draft (If-Match: the revision it applies to)',
      errors: [409, 412],
      example: { title: 'Notes, revised' },
      response: artifactSchema,
    },
    body: 'json',
    request: artifactPatchInput,
    handler: async (ctx, _query, body) => {
      // If-Match: the edit applies only at that revision (412 with the current one otherwise).
      const doc = await updateArtifact(ctx, artifactId(ctx), body(), ifMatch(ctx.get('If-Match') || undefined));
      ctx.set('ETag', etagOf(doc.revision));
      ctx.body = presentArtifact(doc);
    },
  }),
  route({
    method: 'post',
    path: '/artifacts/:id/move',
    access: 'artifact:write',
    doc: { summary: 'Move a draft after another in its workspace', errors: [409], example: { after_id: null }, response: artifactSchema },
    body: 'json',
    request: moveBody,
    handler: async (ctx, _query, body) => {
      const id = artifactId(ctx);
      const { after_id } = body();
      ctx.body = presentArtifact(await moveArtifact(ctx, id, after_id));
    },
  }),
  {
    method: 'delete',
    path: '/artifacts/:id',
    access: 'artifact:manage',
    doc: { summary: 'Delete a draft (If-Match: the revision it applies to)', errors: [409, 412] },
    handler: async (ctx) => {
      await deleteArtifact(ctx, artifactId(ctx), ifMatch(ctx.get('If-Match') || undefined));
      ctx.status = 204;
    },
  },
];
