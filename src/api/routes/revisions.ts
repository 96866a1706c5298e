import { z } from 'zod';
import { draftRevision, listDraftRevisions, revisionedDraft } from '../../operations/history.js';
import type { Principal } from '../../identity/principal.js';
import type { RevisionDoc } from '../../store/revisions.js';
import { presentPage, revisionSchema } from '../../presenters/index.js';
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
 * One revision of a draft: who wrote it and how (provenance), and what it was. Fields of a revision
 * whose content type the caller may not read are left out, as is the content of every revision in a
 * list.
 */
function presentRevision(r: RevisionDoc, principal: Principal, withContent: boolean) {
  const base = { artifact_id: r.artifact_id, revision: r.revision, claimed_at: r.claimed_at.toISOString() };
  if (!r.state) return { ...base, state: 'deleted' as const };
  const s = r.state;
  const p = s.provenance;
  const provenance = { ...p, created_at: p.created_at.toISOString(), updated_at: p.updated_at.toISOString() };
  if (!principal.scopes.allowsType('artifact:read', s.content_type))
    return { ...base, state: s.archived_at ? 'archived' : 'draft', provenance };
  return {
    ...base,
    state: s.archived_at ? ('archived' as const) : ('draft' as const),
    title: s.title,
    content_type: s.content_type,
    ...(withContent ? { content: s.content, context: s.context } : {}),
    provenance,
  };
}

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
