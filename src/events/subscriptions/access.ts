import type { Filter } from 'mongodb';
import { baseType, mcpServerType } from '../../artifacts/content-types/index.js';
import { ScopeSet, userPrincipal, type Principal } from '../../identity/principal.js';
import { problems } from '../../kernel/errors/problem.js';
import type { ArtifactDoc } from '../../store/artifact-doc.js';
import type { ArtifactStore } from '../../store/artifacts.js';
import type { ContainerStore } from '../../store/containers.js';
import type { ServerCredentialStore } from '../../store/server-credentials.js';
import type { SubscriptionDoc } from '../../store/subscriptions.js';

export interface AccessDeps {
  artifacts: ArtifactStore;
  containers: ContainerStore;
  serverCredentials: ServerCredentialStore;
}

const notAServer = (id: string, doc: ArtifactDoc) =>
  problems.conflict('not-an-mcp-server', `Artifact ${id} is a ${doc.content_type}, not an MCP server (${mcpServerType}).`);

/**
 * The MCP server a subscription is made for, by who may make one (issue #21): a person, as
 * themselves, for a server artifact they can see; or a server's own credential, for its server, when
 * it is first-party (its owner last wrote the server's registration: the rule delegation tokens use,
 * SPEC §5.7). API keys, OAuth clients and acting on behalf of someone are refused.
 */
export async function subscribingServer(deps: AccessDeps, principal: Principal, serverId: string | undefined): Promise<ArtifactDoc> {
  if (principal.onBehalfOf)
    throw problems.forbidden('A subscription is made by a person as themselves or by a server credential for its own server.');
  if (principal.actor.kind === 'user') {
    if (!serverId)
      throw problems.validation('Name the MCP server the subscription is for.', [{ name: 'server_id', reason: 'is required' }]);
    const server = await deps.artifacts.get(serverId);
    if (!server || !(await deps.containers.find(principal, server.collection_id))) throw problems.notFound('artifact', serverId);
    if (baseType(server.content_type) !== mcpServerType) throw notAServer(serverId, server);
    return server;
  }
  if (principal.actor.kind === 'server_credential') {
    const credential = await deps.serverCredentials.get(principal.actor.id);
    if (!credential) throw problems.forbidden('This server credential no longer exists.');
    if (serverId && serverId !== credential.server_id) {
      throw problems.forbidden(`A server credential subscribes for its own server (${credential.server_id}) only.`);
    }
    const server = await deps.artifacts.get(credential.server_id);
    if (!server) throw problems.forbidden(`This credential's server_id, ${credential.server_id}, names no registered MCP server.`);
    if (baseType(server.content_type) !== mcpServerType) throw notAServer(credential.server_id, server);
    if ((server.secrets_owner ?? server.provenance.created_by) !== credential.owner_id) {
      throw problems.forbidden(`MCP server ${server._id} was last registered by someone else than this credential's owner.`);
    }
    return server;
  }
  throw problems.forbidden('Subscriptions are made by a person with their own token or by the server credential of the MCP server.');
}

/**
 * The subscriptions a principal may see and manage: a person's own, and a server credential's own
 * server's made by its owner. Null: none (API keys, OAuth clients, acting on behalf of someone).
 */
export async function visibleSubscriptions(deps: AccessDeps, principal: Principal): Promise<Filter<SubscriptionDoc> | null> {
  if (principal.onBehalfOf) return null;
  if (principal.actor.kind === 'user') return { owner_id: principal.subject };
  if (principal.actor.kind !== 'server_credential') return null;
  const credential = await deps.serverCredentials.get(principal.actor.id);
  return credential ? { owner_id: principal.subject, server_id: credential.server_id } : null;
}

/** Whether one subscription is visible: by the rule above, and its workspace still visible (grants, resource filters). */
export async function canSee(deps: AccessDeps, principal: Principal, doc: SubscriptionDoc): Promise<boolean> {
  const scope = await visibleSubscriptions(deps, principal);
  if (!scope || doc.owner_id !== scope.owner_id || (scope.server_id !== undefined && doc.server_id !== scope.server_id)) return false;
  return (await deps.containers.get('workspace', principal, doc.workspace_id)) !== null;
}

/**
 * Why a subscription may no longer deliver, or null while it may: checked before each batch, so a
 * withdrawn grant, a deactivated or narrowed credential or a removed scope stops the deliveries
 * (the subscription pauses; a resume checks again).
 */
export async function deliveryRefusal(deps: Omit<AccessDeps, 'artifacts'>, doc: SubscriptionDoc): Promise<string | null> {
  let principal = userPrincipal(doc.owner_id, false);
  if (doc.created_by.kind === 'server_credential') {
    const credential = await deps.serverCredentials.get(doc.created_by.id);
    if (!credential || !credential.active) return 'the server credential that made it is deleted or deactivated';
    if (!new ScopeSet(credential.scopes).allows('events:subscribe')) return 'the server credential no longer holds events:subscribe';
    principal = { ...principal, actor: { kind: 'server_credential', id: credential._id }, filters: credential.resource_filters };
  }
  const workspace = await deps.containers.get('workspace', principal, doc.workspace_id);
  return workspace ? null : `workspace ${doc.workspace_id} is no longer readable by the subscriber`;
}
