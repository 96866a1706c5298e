import { latestRevisions } from '../store/revisions.js';
import type { ArtifactDoc } from '../store/artifact-doc.js';
import type { OperationContext } from './services.js';

/**
 * Names for the ids an artifact's provenance, a commit or an event carries (issue #37: the console
 * shows names, never raw ids). Each is told only to a caller who may know it (docs/decisions.md,
 * "Names for ids"): a person's e-mail to themselves, to an administrator and to the people they share
 * a workspace or collection with; a credential's name likewise by its owner; an artifact's title to
 * whoever may read it (a deleted draft's last title to whoever sees its workspace). Anything else is
 * answered with null, the same for an id that exists and one that does not.
 */
export interface NameQuery {
  people: string[];
  api_keys: string[];
  server_credentials: string[];
  oauth_clients: string[];
  artifacts: string[];
}

export interface Names {
  people: { id: string; email: string | null; you: boolean }[];
  api_keys: { id: string; name: string | null }[];
  server_credentials: { id: string; name: string | null }[];
  oauth_clients: { id: string; name: string | null }[];
  artifacts: { id: string; title: string | null; content_type?: string; deleted?: true }[];
}

export async function resolveNames(ctx: OperationContext, q: NameQuery): Promise<Names> {
  const { principal } = ctx.state;
  const { users, apiKeys, serverCredentials, oauth, containers } = ctx.services;
  const needsPeople = q.people.length + q.api_keys.length + q.server_credentials.length > 0;
  const known = needsPeople && !principal.isAdmin ? await containers.peopleSharedWith(principal) : new Set([principal.subject]);
  const mayKnow = (person: string) => principal.isAdmin || known.has(person);
  const unique = (ids: string[]) => [...new Set(ids)];

  const people = await Promise.all(
    unique(q.people).map(async (id) => {
      const user = mayKnow(id) ? await users.findById(id) : null;
      return { id, email: user?.email ?? null, you: id === principal.subject };
    }),
  );
  const owned = async (id: string, get: (id: string) => Promise<{ name: string; owner_id: string } | null>) => {
    const doc = await get(id);
    return { id, name: doc && mayKnow(doc.owner_id) ? doc.name : null };
  };
  const api_keys = await Promise.all(unique(q.api_keys).map((id) => owned(id, (k) => apiKeys.get(k))));
  const server_credentials = await Promise.all(unique(q.server_credentials).map((id) => owned(id, (c) => serverCredentials.get(c))));
  // A registered client's name is what its consent screen shows anyone who signs in through it.
  const oauth_clients = await Promise.all(
    unique(q.oauth_clients).map(async (id) => ({ id, name: (await oauth.getClient(id))?.client_name ?? null })),
  );
  const artifacts = await Promise.all(unique(q.artifacts).map((id) => artifactName(ctx, id)));
  return { people, api_keys, server_credentials, oauth_clients, artifacts };
}

async function artifactName(ctx: OperationContext, id: string): Promise<Names['artifacts'][number]> {
  const { principal } = ctx.state;
  const { artifacts, containers, db } = ctx.services;
  const readable = (contentType: string) => principal.scopes.allowsType('artifact:read', contentType);
  const doc: ArtifactDoc | null = await artifacts.current(id);
  if (doc) {
    const seen = readable(doc.content_type) && (await containers.get(doc.container_kind, principal, doc.collection_id));
    return seen ? { id, title: doc.title, content_type: doc.content_type } : { id, title: null };
  }
  // A deleted draft: its deletion's claim names the workspace, the claim before it what it was.
  const [last, before] = await latestRevisions(db, id, 2);
  const workspace = last && !last.state ? last.event?.workspace_id : undefined;
  const state = before?.state;
  if (!workspace || !state || !readable(state.content_type) || !(await containers.get('workspace', principal, workspace)))
    return { id, title: null };
  return { id, title: state.title, content_type: state.content_type, deleted: true };
}
