import { z } from 'zod';
import { problems } from '../../kernel/errors/problem.js';
import type { AppContext } from '../context.js';
import { presentPage, presentVersion } from '../../presenters/index.js';
import { pageQuery, parse } from '../validate.js';
import { visibleArtifact } from '../../operations/artifacts.js';
import { artifactId } from '../artifact-access.js';
import { route, type RouteDef } from '../route.js';

const versionParam = z.object({
  n: z.coerce.number({ error: 'must be a version number' }).int('must be a version number').min(1, 'versions start at 1'),
});

/** A collection artifact the principal can read; a draft has revisions, not versions. */
async function versioned(ctx: AppContext) {
  const id = artifactId(ctx);
  const { doc } = await visibleArtifact(ctx, id);
  if (doc.container_kind !== 'collection') {
    throw problems.conflict(
      'not-versioned',
      `Artifact ${id} is a workspace draft: drafts have revisions, not versions. Commit it into a collection to make versions.`,
    );
  }
  return doc;
}

export const versionRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/artifacts/:id/versions',
    access: 'artifact:read',
    doc: { summary: "List a collection artifact's versions" },
    query: pageQuery,
    handler: async (ctx, { limit, cursor }) => {
      const doc = await versioned(ctx);
      ctx.body = presentPage(await ctx.services.versions.list(doc._id, limit, cursor), (v) => presentVersion(v, false));
    },
  }),
  {
    method: 'get',
    path: '/artifacts/:id/versions/:n',
    access: 'artifact:read',
    doc: { summary: 'Read a version' },
    handler: async (ctx) => {
      const doc = await versioned(ctx);
      const { n } = parse(versionParam, ctx.params, 'path');
      const version = await ctx.services.versions.get(doc._id, n);
      if (!version) throw problems.notFound('version', `${doc._id}/versions/${n}`);
      ctx.body = presentVersion(version, true);
    },
  },
];
