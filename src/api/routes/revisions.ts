import { z } from 'zod';
import { draftRevision, listDraftRevisions, revisionedDraft } from '../../operations/history.js';
import { presentPage, presentRevision, revisionSchema } from '../../presenters/index.js';
import { pageQuery, parse } from '../validate.js';
import { artifactId } from '../artifact-access.js';
import { route, type RouteDef } from '../route.js';
import { page } from '../../presenters/schemas.js';

const revisionParam = z.object({
  n: z.coerce
    .number({ error: 'must be a revision number' })
    .int('must be a revision number')
    .min(1, 'revisions start at 1')
    .max(Number.MAX_SAFE_INTEGER),
});

/**
 * The revision history of a draft (docs/decisions.md, "Revision claims"): every revision since
 * revision claims exist, oldest first, each written by exactly one writer.
 */
export const revisionRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/artifacts/:id/revisions',
    access: 'artifact:read',
    doc: { summary: "List a draft's revisions", response: page(revisionSchema) },
    query: pageQuery,
    handler: async (ctx, { limit, cursor }) => {
      const draft = await revisionedDraft(ctx, artifactId(ctx));
      const { principal } = ctx.state;
      ctx.body = presentPage(await listDraftRevisions(ctx, draft, limit, cursor), (r) => presentRevision(r, principal, false));
    },
  }),
  {
    method: 'get',
    path: '/artifacts/:id/revisions/:n',
    access: 'artifact:read',
    doc: { summary: 'Read a revision of a draft', response: revisionSchema },
    handler: async (ctx) => {
      const draft = await revisionedDraft(ctx, artifactId(ctx));
      const { n } = parse(revisionParam, ctx.params, 'path');
      ctx.body = presentRevision(await draftRevision(ctx, draft, n), ctx.state.principal, true);
    },
  },
];
