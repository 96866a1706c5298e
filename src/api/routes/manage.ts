import { manageArtifact, manageBody } from '../../operations/manage.js';
import { parse } from '../validate.js';
import { artifactId } from '../artifact-access.js';
import type { RouteDef } from '../route.js';

export const manageRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/artifacts/:id/manage',
    access: 'artifact:manage',
    body: 'json',
    handler: async (ctx) => {
      const id = artifactId(ctx);
      const { action } = parse(manageBody, ctx.state.body, 'body');
      ctx.body = await manageArtifact(ctx, id, action);
    },
  },
];
