import { z } from 'zod';
import { presentPage, presentVersion, versionSchema } from '../../presenters/index.js';
import { pageQuery, parse } from '../validate.js';
import { artifactVersion, listVersions, versionedArtifact } from '../../operations/history.js';
import { artifactId } from '../artifact-access.js';
import { route, type RouteDef } from '../route.js';
import { page } from '../../presenters/schemas.js';

const versionParam = z.object({
  n: z.coerce.number({ error: 'must be a version number' }).int('must be a version number').min(1, 'versions start at 1'),
});

export const versionRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/artifacts/:id/versions',
    access: 'artifact:read',
    doc: { summary: "List a collection artifact's versions", response: page(versionSchema) },
    query: pageQuery,
    handler: async (ctx, { limit, cursor }) => {
      const artifact = await versionedArtifact(ctx, artifactId(ctx));
      ctx.body = presentPage(await listVersions(ctx, artifact, limit, cursor), (v) => presentVersion(v, false));
    },
  }),
  {
    method: 'get',
    path: '/artifacts/:id/versions/:n',
    access: 'artifact:read',
    doc: { summary: 'Read a version', response: versionSchema },
    handler: async (ctx) => {
      const artifact = await versionedArtifact(ctx, artifactId(ctx));
      const { n } = parse(versionParam, ctx.params, 'path');
      ctx.body = presentVersion(await artifactVersion(ctx, artifact, n), true);
    },
  },
];
