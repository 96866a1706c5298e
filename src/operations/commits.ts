import { createHash } from 'node:crypto';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { grantsOf, requireGrant } from '../identity/grants.js';
import type { Scope } from '../identity/principal.js';
import { countsOf, previewDrafts, whyNotCommittable, type PreviewCounts } from '../commits/preview.js';
import { Problem, problems } from '../kernel/errors/problem.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { CommitDoc, CommitState } from '../store/commits.js';
import type { ContainerDoc } from '../store/containers.js';
import { commitWorkflowId } from '../workflows/contracts/ids.js';
import { presentCommit } from '../presenters/index.js';
import { stdioServers } from '../stdio-servers/index.js';
import type { OperationContext } from './services.js';
import { uuid } from '../kernel/json/schemas.js';

const selection = {
  collection_id: uuid(),
  artifact_ids: z.array(uuid()).min(1, 'must name at least one artifact, or be left out for all').max(5000).optional(),
};
/** The body of `POST /workspaces/{id}/commit-preview`; the `commit_preview` tool adds the workspace id. */
export const previewBody = z.strictObject(selection);
/** The body of `POST /workspaces/{id}/commits`; the `commit_workspace` tool adds the workspace id. */
export const commitBody = z.strictObject({
  ...selection,
  message: z.string().trim().min(1, 'must say what the commit is for').max(2000),
  /** Seconds to wait for a decision; at most (and by default) COMMIT_EXPIRY_SECONDS. */
  expires_in: z.number().int('must be whole seconds').min(1).optional(),
});
export const approveBody = z.strictObject({ comment: z.string().trim().max(2000).optional() });
export const rejectBody = z.strictObject({ comment: z.string().trim().min(1, 'must say why the commit is rejected').max(2000) });
/** Namespace of commit ids derived from an Idempotency-Key. */
const idempotencyNamespace = '9d2f4a61-0c3e-4b8a-a5f7-1e6d3c2b4a90';

/**
 * The workspace, target collection and drafts of a preview or commit request, after every check:
 * both containers visible, each named draft in the workspace and not archived, the caller holding
 * `scope` for each draft's content type. Anything else is refused before anything is started.
 */
async function selectionOf(ctx: OperationContext, id: string, body: z.infer<typeof previewBody>, scope: Scope) {
  const principal = ctx.state.principal;
  const workspace = await ctx.services.containers.get('workspace', principal, id);
  if (!workspace) throw problems.notFound('workspace', id);
  const collection = await ctx.services.containers.get('collection', principal, body.collection_id);
  if (!collection) throw problems.notFound('collection', body.collection_id);

  const ids = body.artifact_ids ? [...new Set(body.artifact_ids)] : null;
  // As their latest revision claims have them (one primary-key read per draft; issue #30).
  let drafts = await ctx.services.artifacts.currentDrafts(workspace._id, ids);
  if (ids) {
    const found = new Set(drafts.map((d) => d._id));
    const bad = [
      ...ids.flatMap((a, i) => (found.has(a) ? [] : [{ name: `artifact_ids.${i}`, reason: `${a} is not an artifact of this workspace` }])),
      ...drafts
        .filter((d) => d.archived_at)
        .map((d) => ({ name: `artifact_ids.${ids.indexOf(d._id)}`, reason: `${d._id} is archived: unarchive it first` })),
    ];
    if (bad.length) throw problems.validation(bad[0]!.reason, bad);
    const refused = drafts.filter((d) => !principal.scopes.allowsType(scope, d.content_type));
    if (refused.length) throw problems.insufficientScope(`${scope} (for ${refused[0]!.content_type})`);
  } else {
    drafts = drafts.filter((d) => principal.scopes.allowsType(scope, d.content_type));
  }
  if (drafts.length > ctx.services.config.COMMIT_MAX_ARTIFACTS) {
    throw problems.validation(
      `One commit takes at most ${ctx.services.config.COMMIT_MAX_ARTIFACTS} artifacts; this selection has ${drafts.length}. Name some with artifact_ids.`,
      [{ name: 'artifact_ids', reason: `more than ${ctx.services.config.COMMIT_MAX_ARTIFACTS} artifacts` }],
    );
  }
  return { workspace, collection, drafts };
}

const notCommittable = (ctx: OperationContext, draft: ArtifactDoc) => whyNotCommittable(draft, stdioServers(ctx.services.config));

function preview(ctx: OperationContext, drafts: ArtifactDoc[], collection: ContainerDoc, diff: boolean) {
  return previewDrafts(drafts, collection._id, (ids) => ctx.services.artifacts.getMany(ids), { diff });
}

/**
 * Who may see a commit, its items and their diffs: whoever sees its workspace, and the reviewers of
 * its collection (the C grant). Merely reading the collection shows none of the drafts.
 */
async function mayReview(ctx: OperationContext, commit: CommitDoc): Promise<boolean> {
  const principal = ctx.state.principal;
  if (await ctx.services.containers.get('workspace', principal, commit.workspace_id)) return true;
  const collection = await ctx.services.containers.get('collection', principal, commit.collection_id);
  return collection !== null && grantsOf(collection, principal.subject).has('C');
}

/** The commits the principal may see (the rule of `mayReview`, as a query): pending first. */
export async function listCommits(
  ctx: OperationContext,
  filters: { workspaceId?: string; state?: CommitState },
  limit: number,
  cursor?: string,
) {
  const principal = ctx.state.principal;
  const [workspaces, collections] = await Promise.all([
    ctx.services.containers.visibleIds('workspace', principal),
    ctx.services.containers.grantedIds('collection', principal, 'C'),
  ]);
  return ctx.services.commits.list({ workspaces, collections }, filters, limit, cursor);
}

/** A commit the principal may see, or 404. */
export async function visibleCommit(ctx: OperationContext, id: string): Promise<CommitDoc> {
  const commit = await ctx.services.commits.get(id);
  if (!commit || !(await mayReview(ctx, commit))) throw problems.notFound('commit', id);
  return commit;
}

/** Items of content types the caller's scopes do not cover are left out. */
export const readable = (ctx: OperationContext) => (item: { content_type: string }) =>
  ctx.state.principal.scopes.allowsType('artifact:read', item.content_type);

/** A page of a commit's items, those of content types the caller may read. */
export async function listCommitItems(ctx: OperationContext, id: string, limit: number, cursor?: string) {
  const commit = await visibleCommit(ctx, id);
  const page = await ctx.services.commits.items(commit, limit, cursor);
  return { ...page, items: page.items.filter(readable(ctx)) };
}

export async function presentWithItems(ctx: OperationContext, commit: CommitDoc) {
  const [items, results] = await Promise.all([
    commit.counts ? ctx.services.commits.summaries(commit) : [],
    commit.state === 'committed' ? ctx.services.commits.results(commit._id) : null,
  ]);
  return presentCommit(commit, items.filter(readable(ctx)), results?.filter(readable(ctx)) ?? null);
}

/**
 * A person's decision on a commit. Only a person's own token reaches here (route access 'human');
 * they must hold C (commit into) on the target collection.
 */
export async function decide(ctx: OperationContext, id: string, action: 'approve' | 'reject', comment: string | null) {
  const principal = ctx.state.principal;
  const commit = await visibleCommit(ctx, id);
  const collection = await ctx.services.containers.get('collection', principal, commit.collection_id);
  if (!collection)
    throw problems.forbidden(`You need the C (create) grant on collection ${commit.collection_id} to decide on commits into it.`);
  requireGrant(collection, principal, 'C');
  const d = commit.decision;
  // The same person repeating the same decision (a retried request) gets the commit as it is now.
  if (!(d && d.action === action && d.by === principal.subject)) {
    if (commit.state === 'previewing')
      throw problems.conflict(
        'commit-not-pending',
        'The preview of this commit is still being computed; decide once it is awaiting approval.',
      );
    if (commit.state !== 'awaiting_approval')
      throw problems.conflict('commit-not-pending', `The commit is ${commit.state}, not awaiting approval.`);
    try {
      await ctx.services.commitWorkflows.decide(commit, action, principal.subject, comment);
    } catch (err) {
      // The workflow ended between our read and the update (it expired, say): say so, not 500.
      const now = err instanceof Problem ? null : await ctx.services.commits.get(commit._id);
      if (now && now.state !== 'awaiting_approval')
        throw problems.conflict('commit-not-pending', `The commit is ${now.state}, not awaiting approval.`);
      throw err;
    }
  }
  return presentWithItems(ctx, (await ctx.services.commits.get(commit._id))!);
}

/** What a commit request asked for, as a hash: the same Idempotency-Key must come with the same request. */
function requestHash(workspaceId: string, body: z.infer<typeof commitBody>): string {
  const asked = [
    workspaceId,
    body.collection_id,
    body.artifact_ids ? [...new Set(body.artifact_ids)].sort() : null,
    body.message,
    body.expires_in ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(asked)).digest('hex');
}

/**
 * The record of a new commit request, after every check: the selection, the C grant on the
 * collection, content a collection accepts, and something to commit.
 */
async function newCommit(
  ctx: OperationContext,
  id: string,
  workspaceId: string,
  body: z.infer<typeof commitBody>,
): Promise<{ doc: CommitDoc; counts: PreviewCounts }> {
  const principal = ctx.state.principal;
  const maxExpiry = ctx.services.config.COMMIT_EXPIRY_SECONDS;
  if (body.expires_in && body.expires_in > maxExpiry)
    throw problems.validation(`expires_in: at most ${maxExpiry} seconds`, [{ name: 'expires_in', reason: `must be at most ${maxExpiry}` }]);
  const { workspace, collection, drafts } = await selectionOf(ctx, workspaceId, body, 'artifact:write');
  // Committing copies drafts out of the workspace (E) into the collection (C).
  requireGrant(workspace, principal, 'E');
  requireGrant(collection, principal, 'C');
  const refused = drafts.map((d) => [d, notCommittable(ctx, d)] as const).filter(([, why]) => why);
  if (refused.length) {
    throw problems.validation(
      `Artifact ${refused[0]![0]._id} cannot go into a collection: ${refused[0]![1]}`,
      refused.map(([d, why]) => ({ name: `artifact ${d._id}`, reason: why! })),
    );
  }
  const items = await preview(ctx, drafts, collection, false);
  if (!items.some((i) => i.status !== 'unchanged')) {
    throw problems.conflict('nothing-to-commit', `Every selected artifact is already in collection ${collection._id} as it is now.`);
  }
  const now = new Date();
  const { actor } = principal;
  const doc: CommitDoc = {
    _id: id,
    workflow_id: commitWorkflowId(workspace._id, id),
    workspace_id: workspace._id,
    collection_id: collection._id,
    artifact_ids: drafts.map((d) => d._id),
    selection: body.artifact_ids ? 'named' : 'all',
    request_hash: requestHash(workspace._id, body),
    message: body.message,
    expiry_seconds: body.expires_in ?? maxExpiry,
    state: 'previewing',
    rank: 0,
    requested_by: principal.subject,
    ...(actor.kind !== 'user' ? { requested_via: { kind: actor.kind, id: actor.id } } : {}),
    created_at: now,
    updated_at: now,
    expires_at: null,
    counts: null,
    total: 0,
    applied: 0,
    decision: null,
  };
  return { doc, counts: countsOf(items) };
}

/** What committing would do (read-only): the preview with diffs, and why any draft cannot go. */
export async function previewCommit(ctx: OperationContext, workspaceId: string, body: z.infer<typeof previewBody>) {
  const { workspace, collection, drafts } = await selectionOf(ctx, workspaceId, body, 'artifact:read');
  const items = await preview(ctx, drafts, collection, true);
  return {
    workspace_id: workspace._id,
    collection_id: collection._id,
    counts: countsOf(items),
    items: items.map((item, i) => {
      const refused = notCommittable(ctx, drafts[i]!);
      return { ...item, content_diff: item.content_diff ?? null, ...(refused ? { not_committable: refused } : {}) };
    }),
  };
}

/**
 * Records a commit request and starts its workflow, which waits for a person's decision. With an
 * idempotency key, a replay answers with the commit the key first made, whatever happened since.
 */
export async function requestCommit(ctx: OperationContext, workspaceId: string, body: z.infer<typeof commitBody>, key: string | null) {
  const principal = ctx.state.principal;
  const id = key ? uuidv5(`${principal.subject}:${key}`, idempotencyNamespace) : uuidv7();
  const earlier = key ? await ctx.services.commits.get(id) : null;
  if (earlier && !(await ctx.services.containers.get('workspace', principal, earlier.workspace_id)))
    throw problems.notFound('workspace', workspaceId);
  const fresh = earlier ? null : await newCommit(ctx, id, workspaceId, body);
  const { doc: commit, created } = fresh ? await ctx.services.commits.create(fresh.doc) : { doc: earlier!, created: false };
  if (!created && commit.request_hash !== requestHash(workspaceId, body)) {
    throw problems.conflict('idempotency-key-reused', 'This Idempotency-Key was used for a different commit request.');
  }
  try {
    // A replay starts the workflow only if the first request stopped before it could.
    if (created || commit.state === 'previewing') await ctx.services.commitWorkflows.start(commit);
  } catch (err) {
    if (created) await ctx.services.commits.discard(id);
    ctx.services.logger.error({ request_id: ctx.state.requestId, err }, 'commit workflow not started');
    throw problems.unavailable('The commit could not be started: Temporal did not accept it. Nothing was recorded; retry.');
  }
  // `counts`: what the request saw (the workflow records its own preview's counts once it has run).
  return { created, counts: fresh?.counts ?? commit.counts, commit: await presentWithItems(ctx, (await ctx.services.commits.get(id))!) };
}
