import { z } from 'zod';
import { flagsSchema, grantsOf, requireGrant, type GrantFlag } from '../identity/grants.js';
import { problems } from '../kernel/errors/problem.js';
import type { ContainerDoc, ContainerKind } from '../store/containers.js';
import { visibleContainer } from './containers.js';
import type { OperationContext } from './services.js';

/** Who else may see and do what in a container: listed, granted and revoked by its administrators. */

export const shareBody = z.strictObject({ person_id: z.uuid({ error: 'must be a person id (UUID)' }), flags: flagsSchema.default('RS') });

type Shares = Pick<ContainerDoc, 'owner_id' | 'shares'>;

/** The container, visible to the principal and administrable by its person (A grant), or 404/403. */
async function administrable(ctx: OperationContext, kind: ContainerKind, id: string): Promise<ContainerDoc> {
  const doc = await visibleContainer(ctx, kind, id);
  requireGrant(doc, ctx.state.principal, 'A');
  return doc;
}

export async function listShares(ctx: OperationContext, kind: ContainerKind, id: string): Promise<Shares> {
  return administrable(ctx, kind, id);
}

/**
 * Whether the caller may change or remove `personId`'s grant, on the container's shares as they are
 * now (asked again on every attempt of the change): they administer it (A), and an owner's grant (O)
 * is changed only by an owner. The creator (`owner_id`) is never a share, so a container always keeps
 * an owner; a co-owner may step down.
 */
function mayChangeGrantOf(ctx: OperationContext, doc: ContainerDoc, personId: string): void {
  const { principal } = ctx.state;
  requireGrant(doc, principal, 'A');
  const target = doc.shares.find((s) => s.person_id === personId);
  if (target?.flags.includes('O') && !grantsOf(doc, principal.subject).has('O')) {
    throw problems.forbidden(`Only an owner may change or remove the grant of an owner of ${doc.kind} ${doc._id}.`);
  }
}

/** Shares a container with a person, within what the caller may hand out. */
export async function grantShare(
  ctx: OperationContext,
  kind: ContainerKind,
  id: string,
  share: z.infer<typeof shareBody>,
): Promise<Shares> {
  const doc = await administrable(ctx, kind, id);
  if (share.person_id === doc.owner_id)
    throw problems.validation('The owner already holds every grant.', [{ name: 'person_id', reason: 'is the owner' }]);
  const allowed = (latest: ContainerDoc) => {
    // An administrator who is not an owner hands out only flags they hold, and never O.
    const held = grantsOf(latest, ctx.state.principal.subject);
    const beyond = [...share.flags].filter((f) => !held.has(f as GrantFlag));
    if (beyond.length > 0) throw problems.forbidden(`You cannot grant ${beyond.join('')}: you do not hold it.`);
    mayChangeGrantOf(ctx, latest, share.person_id);
  };
  allowed(doc);
  if (!(await ctx.services.users.findById(share.person_id))) {
    throw problems.validation(`No person with id ${share.person_id}.`, [{ name: 'person_id', reason: 'unknown person' }]);
  }
  return (await ctx.services.containers.share(kind, id, share, allowed))!;
}

/** Stops sharing a container with a person (404 when it is not shared with them). */
export async function revokeShare(ctx: OperationContext, kind: ContainerKind, id: string, personId: string): Promise<void> {
  const doc = await administrable(ctx, kind, id);
  if (!doc.shares.some((s) => s.person_id === personId)) throw problems.notFound('share', personId);
  await ctx.services.containers.unshare(kind, id, personId, (latest) => mayChangeGrantOf(ctx, latest, personId));
}
