import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { requireGrant, type GrantFlag } from '../identity/grants.js';
import type { Principal, Scope } from '../identity/principal.js';
import { authorizerType, baseType, hostType, mcpServerType, secretReferences, validateContent } from '../artifacts/content-types/index.js';
import type { McpServerContent } from '../artifacts/content-types/mcp-server.js';
import type { AuthorizerContent } from '../artifacts/content-types/authorizer.js';
import { automationType, requireAutomationAuthor } from '../artifacts/content-types/automation.js';
import { OutboundRefusedError } from '../net/outbound.js';
import { Problem, problems, type InvalidParam } from '../kernel/errors/problem.js';
import type { EventKind } from '../events/types.js';
import { RevisionMismatch, type ArtifactDoc, type ArtifactPatch, type Provenance } from '../store/artifacts.js';
import type { ContainerDoc } from '../store/containers.js';
import type { OperationContext } from './services.js';
import { storableObject, text, uuid } from '../kernel/json/schemas.js';
import { stdioServers } from '../stdio-servers/index.js';
import { afterMcpWrite } from './mcp-catalog.js';
import { enrichCreated, onCreateVerdict } from './on-create.js';
import { afterWrite, type AfterWriteSteps } from '../artifacts/after-write.js';

/**
 * A visible artifact and its container, or 404: invisible and missing look the same. Visible means
 * the container is visible and the principal may read this content type. The artifact is as every
 * acknowledged write left it (ArtifactStore.current: a draft is settled to its latest revision claim),
 * so a GET, get_artifact, and the checks before an edit never answer from a revision behind one
 * already acknowledged.
 */
export async function visibleArtifact(ctx: OperationContext, id: string): Promise<{ doc: ArtifactDoc; container: ContainerDoc }> {
  const principal = ctx.state.principal;
  const doc = await ctx.services.artifacts.current(id);
  const container = doc && (await ctx.services.containers.get(doc.container_kind, principal, doc.collection_id));
  if (!doc || !container || !principal.scopes.allowsType('artifact:read', doc.content_type)) throw problems.notFound('artifact', id);
  return { doc, container };
}

/** The principal may `scope` this content type (fine-grained scopes may limit it to some types). */
export function requireTypeScope(principal: Principal, scope: Scope, contentType: string): void {
  if (!principal.scopes.allowsType(scope, contentType)) throw problems.insufficientScope(`${scope} (for ${contentType})`);
}

/**
 * A workspace draft the principal may change: visible, not in a collection, within the principal's
 * scope for its content type, and under the person's grant on the workspace.
 */
export async function changeableDraft(ctx: OperationContext, id: string, scope: Scope, flag: GrantFlag) {
  const found = await visibleArtifact(ctx, id);
  if (found.doc.container_kind !== 'workspace') {
    throw problems.conflict(
      'immutable-artifact',
      `Artifact ${id} is in a collection, and collection artifacts are immutable: change its draft in a workspace and commit it (POST /workspaces/{id}/commits) to make a new version.`,
    );
  }
  requireTypeScope(ctx.state.principal, scope, found.doc.content_type);
  requireGrant(found.container, ctx.state.principal, flag);
  return found;
}

/** A draft whose content may be edited: changeable, and not archived (unarchive it first). */
export async function editableDraft(ctx: OperationContext, id: string) {
  const found = await changeableDraft(ctx, id, 'artifact:write', 'U');
  if (found.doc.archived_at)
    throw problems.conflict('archived-artifact', `Artifact ${id} is archived; unarchive it (POST /artifacts/${id}/manage) to edit it.`);
  return found;
}

/**
 * What follows a write through the API (artifacts/after-write.ts): this replica's search index and
 * the embedding, and for workspace artifacts the workspace's event and the MCP catalog or lifecycle
 * call. The write has happened by now, so a failure here is logged rather than failing the request
 * (docs/decisions.md).
 */
export async function afterApiWrite(ctx: OperationContext, kind: EventKind, doc: ArtifactDoc, changed?: string[]) {
  const { search, eventWorkflows, logger } = ctx.services;
  const steps: AfterWriteSteps = {
    index: (w) => (w.kind === 'artifact_deleted' ? search.deleted(w.doc._id) : search.written(w.doc)),
    publish: (w) => eventWorkflows.publishWrite(w),
    mcp: (w) => afterMcpWrite(ctx, w.kind, w.doc),
  };
  const log = (what: string, err: unknown) =>
    logger.error({ request_id: ctx.state.requestId, err, kind, artifact_id: doc._id }, `${what} not updated`);
  await afterWrite(steps, { kind, doc, actor: ctx.state.principal.subject, ...(changed ? { changed } : {}) }, { log });
}

/** Provenance of a REST write: the request, and the credential when a person did not act directly. */
export function apiSource(ctx: OperationContext): Provenance['source'] {
  const { actor } = ctx.state.principal;
  return {
    kind: ctx.state.channel ?? 'api',
    request_id: ctx.state.requestId,
    ...(actor.kind !== 'user' ? { via: { kind: actor.kind, id: actor.id } } : {}),
  };
}

/**
 * Validates typed content for where it will live, and checks that every secret it references exists
 * and belongs to the person writing it.
 */
export async function checkedContent(
  ctx: OperationContext,
  contentType: string,
  content: string,
  container: ContainerDoc,
): Promise<string> {
  if (baseType(contentType) === automationType) requireAutomationAuthor(ctx.state.principal);
  const checked = validateContent(contentType, content, {
    stdio: stdioServers(ctx.services.config),
    inCollection: container.kind === 'collection',
  });
  if (baseType(contentType) === mcpServerType) await checkMcpServerTargets(ctx, JSON.parse(checked) as McpServerContent);
  if (baseType(contentType) === authorizerType) {
    // Checked as they are registered, not only when a connection first uses them.
    const { auth_url, token_url } = JSON.parse(checked) as AuthorizerContent;
    await checkOutboundTargets(ctx, [
      ['content.auth_url', auth_url],
      ['content.token_url', token_url],
    ]);
  }
  for (const { id, field } of secretReferences(contentType, checked)) {
    if (!(await ctx.services.secrets.get(ctx.state.principal.subject, id))) {
      throw problems.validation(`Secret ${id} does not exist or is not yours.`, [{ name: field, reason: 'unknown secret' }]);
    }
  }
  return checked;
}

/** An authorizer the principal can see, or 404 (as for any artifact, invisible and missing look the same). */
export async function visibleAuthorizer(ctx: OperationContext, id: string): Promise<{ doc: ArtifactDoc; container: ContainerDoc }> {
  const found = await visibleArtifact(ctx, id).catch(() => null);
  if (!found || baseType(found.doc.content_type) !== authorizerType) throw problems.notFound('authorizer', id);
  return found;
}

/**
 * Why the outbound guard would refuse a URL the platform (or, for an authorizer's auth_url, a
 * person's browser and the platform's metadata lookup at its origin) will reach: a private, loopback
 * or link-local target that MCP_OUTBOUND_ALLOW does not list (loopback passes under
 * MCP_OUTBOUND_LOOPBACK). Undefined when it may be reached.
 */
async function outboundRefusal(ctx: OperationContext, url: string): Promise<string | undefined> {
  try {
    await ctx.services.outbound.check(url);
  } catch (err) {
    // A name that does not resolve yet passes: the call itself is guarded again when it is made.
    if (err instanceof OutboundRefusedError) return err.message;
  }
  return undefined;
}

/** Checks registration targets as they are written, naming every refused field in one 400. */
async function checkOutboundTargets(ctx: OperationContext, targets: [field: string, url: string][]): Promise<void> {
  const reasons = await Promise.all(targets.map(([, url]) => outboundRefusal(ctx, url)));
  const refused = targets.flatMap(([name, url], i) => (reasons[i] ? [{ name, url, reason: reasons[i] }] : []));
  if (refused.length === 0) return;
  const detail = refused.map((r) => `The platform will not call ${r.url}: ${r.reason}.`).join(' ');
  throw problems.validation(
    detail,
    refused.map(({ name, reason }): InvalidParam => ({ name, reason })),
  );
}

/**
 * What an MCP server registration points at, checked as it is registered: an HTTP server's URL must
 * be one the platform may call (no private, loopback or link-local target), and an oauth2 server
 * names an authorizer the writer can see (each caller will connect to it).
 */
async function checkMcpServerTargets(ctx: OperationContext, { transport, auth }: McpServerContent): Promise<void> {
  if (transport.type === 'http') {
    const [field, url] = transport.url ? ['content.transport.url', transport.url] : ['content.transport.well_known', transport.well_known!];
    await checkOutboundTargets(ctx, [[field, url]]);
  }
  if (transport.type !== 'http' && transport.host_id !== undefined) await checkHost(ctx, transport.host_id);
  if (auth?.type === 'oauth2') {
    await visibleAuthorizer(ctx, auth.authorizer_id).catch(() => {
      throw problems.validation(`No authorizer with id ${auth.authorizer_id} is visible to you.`, [
        { name: 'content.auth.authorizer_id', reason: 'unknown authorizer' },
      ]);
    });
  }
}

/**
 * A server on a host runs on a person's own machine: only someone who may change the host artifact
 * (its workspace's writers) may point a server at it. Invisible, missing, not a host, or not yours to
 * change: one 400 naming the field.
 */
async function checkHost(ctx: OperationContext, hostId: string): Promise<void> {
  const found = await changeableDraft(ctx, hostId, 'artifact:write', 'U').catch(() => null);
  if (!found || baseType(found.doc.content_type) !== hostType || found.doc.archived_at)
    throw problems.validation(`No host ${hostId} that you may change is visible to you.`, [
      {
        name: 'content.transport.host_id',
        reason: 'must be a host artifact (application/vnd.platform.host+json) in a workspace you may write',
      },
    ]);
}

const mimeLike = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(\s*;.*)?$/i;
/** The editable fields of an artifact, as REST bodies and MCP tool inputs validate them. */
export const artifactFields = {
  title: text(z.string().trim().min(1).max(500)),
  content_type: text(z.string().max(255).regex(mimeLike, 'must be a MIME type such as text/markdown')),
  content: text(),
  context: storableObject,
};
/** The body of `POST /artifacts` and the input of the `create_artifact` tool. */
export const createArtifactInput = z.strictObject({
  title: artifactFields.title,
  content_type: artifactFields.content_type,
  content: artifactFields.content,
  collection_id: uuid().optional(),
  context: artifactFields.context.default({}),
  derived_from: uuid().optional(),
});

/** A patch names at least one field. */
export function changesSomething(patch: object): boolean {
  return Object.keys(patch).length > 0;
}
export const changesSomethingMessage = 'must change at least one of title, content_type, content, context';

/** The body of `PATCH /artifacts/{id}`. */
export const artifactPatchInput = z.strictObject(artifactFields).partial().refine(changesSomething, changesSomethingMessage);

/**
 * Collections change only through a reviewed commit (SPEC §1), so no REST or MCP write creates an
 * artifact in one directly: the same problem whichever way the caller came.
 */
export function collectionWriteRequiresCommit(collectionId: string) {
  return problems.conflict(
    'collection-write-requires-commit',
    `${collectionId} is a collection, and collections change only through a reviewed commit: create the artifact in a workspace, then commit it (POST /workspaces/{id}/commits, or the MCP tool commit_workspace) for a person to approve.`,
  );
}

/** Creates an artifact in a workspace the principal may add to (C), or its default workspace; never in a collection. */
export async function createArtifact(ctx: OperationContext, input: z.infer<typeof createArtifactInput>): Promise<ArtifactDoc> {
  const principal = ctx.state.principal;
  if (!input.collection_id && principal.filters.workspaces !== '*') {
    throw problems.validation('This credential is limited to some workspaces: name one in collection_id.', [
      { name: 'collection_id', reason: 'is required' },
    ]);
  }
  const container = input.collection_id
    ? await ctx.services.containers.find(principal, input.collection_id)
    : await ctx.services.containers.defaultWorkspace(principal);
  if (!container) throw problems.notFound('workspace or collection', input.collection_id);
  if (container.kind === 'collection') throw collectionWriteRequiresCommit(container._id);
  requireTypeScope(principal, 'artifact:write', input.content_type);
  requireGrant(container, principal, 'C');
  const content = await checkedContent(ctx, input.content_type, input.content, container);
  // §4.6 on_create validates before anything is written (issue #37): a refusal stores nothing.
  const id = uuidv7();
  const fields = { title: input.title, content_type: input.content_type, content, context: input.context };
  const verdict = await onCreateVerdict(ctx, container, { id, ...fields, collection_id: container._id });
  const doc = await ctx.services.artifacts.create(principal, container, {
    id,
    ...fields,
    source: { ...apiSource(ctx), ...(input.derived_from ? { derived_from: input.derived_from } : {}) },
  });
  await afterApiWrite(ctx, 'artifact_created', doc);
  return enrichCreated(ctx, doc, verdict, (d, changed) => afterApiWrite(ctx, 'artifact_updated', d, changed));
}

/**
 * The revisions a write may apply at: from `If-Match` (REST) or `revision` (MCP). Undefined: any.
 * An entity tag is a revision in quotes (`"3"`); `W/"3"` is taken as the same, `*` as any.
 */
export type ExpectedRevision = number[] | undefined;

export function ifMatch(header: string | undefined): ExpectedRevision {
  if (header === undefined) return undefined;
  const tags = header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (tags.includes('*')) return undefined;
  return tags.flatMap((t) => {
    const m = /^(?:W\/)?"([1-9][0-9]{0,15})"$/.exec(t);
    return m ? [Number(m[1])] : [];
  });
}

/** The strong entity tag of an artifact: its revision (which every edit, archive and restore moves). */
export const etagOf = (revision: number) => `"${revision}"`;

/** 412 problem+json naming the artifact's current revision (and its tag, to retry with). */
export function revisionMismatch(id: string, current: number | null, expected?: number[]): Problem {
  if (current === null) return problems.notFound('artifact', id);
  const wanted = expected?.length ? `revision ${expected.join(' or ')}` : 'the revision you sent';
  return new Problem(
    412,
    'revision-mismatch',
    'Precondition failed',
    `Artifact ${id} is at revision ${current}, not ${wanted}: read it again (GET /artifacts/${id}) and apply your change to that revision.`,
    { current_revision: current },
    { ETag: etagOf(current) },
  );
}

/** The one revision a conditional write is made at, or 412 when the draft is not at any of them. */
export function expectedAt(id: string, current: ArtifactDoc, expected: ExpectedRevision): number | undefined {
  if (expected === undefined) return undefined;
  if (!expected.includes(current.revision)) throw revisionMismatch(id, current.revision, expected);
  return current.revision;
}

/**
 * Changes a workspace draft the principal may edit (U grant, not archived): at its next revision, or,
 * with `expected`, only if it is still at one of those revisions (412 otherwise, also when another
 * writer got there first).
 */
export async function updateArtifact(
  ctx: OperationContext,
  id: string,
  patch: ArtifactPatch,
  expected?: ExpectedRevision,
): Promise<ArtifactDoc> {
  const principal = ctx.state.principal;
  const { doc: current, container } = await editableDraft(ctx, id);
  const at = expectedAt(id, current, expected);
  if (patch.content_type) requireTypeScope(principal, 'artifact:write', patch.content_type);
  if (patch.content !== undefined || patch.content_type !== undefined) {
    patch.content = await checkedContent(ctx, patch.content_type ?? current.content_type, patch.content ?? current.content, container);
    patch.secrets_owner = principal.subject; // checkedContent has just checked they own what it references
  }
  let doc: ArtifactDoc | null;
  try {
    doc = await ctx.services.artifacts.update(principal, id, patch, apiSource(ctx), at);
  } catch (err) {
    if (err instanceof RevisionMismatch) throw revisionMismatch(id, err.current, expected);
    throw err;
  }
  if (!doc) throw problems.notFound('artifact', id);
  await afterApiWrite(ctx, 'artifact_updated', doc, Object.keys(patch));
  return doc;
}

/** Deletes a workspace draft (D grant); with `expected`, only at one of those revisions (412 otherwise). */
export async function deleteArtifact(ctx: OperationContext, id: string, expected?: ExpectedRevision): Promise<void> {
  const { doc: current } = await changeableDraft(ctx, id, 'artifact:manage', 'D');
  const at = expectedAt(id, current, expected);
  try {
    if (await ctx.services.artifacts.delete(id, at, { actor: ctx.state.principal.subject, source: apiSource(ctx) }))
      await afterApiWrite(ctx, 'artifact_deleted', current);
  } catch (err) {
    // Gone meanwhile: deleted, as asked.
    if (err instanceof RevisionMismatch && err.current !== null) throw revisionMismatch(id, err.current, expected);
    if (!(err instanceof RevisionMismatch)) throw err;
  }
}
