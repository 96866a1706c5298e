import { manageArtifact, manageBody } from '../../operations/manage.js';
import { artifactId } from '../artifact-access.js';
import { route, type RouteDef } from '../route.js';
import { managedArtifactSchema } from '../../presenters/index.js';

export const manageRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/artifacts/:id/manage',
    access: 'artifact:manage',
    doc: {
      summary: 'Archive, unarchive, revert or delete an artifact',
      errors: [409],
      example: { action: 'archive' },
      response: managedArtifactSchema,
    },
    body: 'json',
    request: manageBody,
    handler: async (ctx, _query, body) => {
      const id = artifactId(ctx);
      const { action } = body();
      ctx.body = await manageArtifact(ctx, id, action);
    },
  }),
];
