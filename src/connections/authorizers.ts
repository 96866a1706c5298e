import { authorizerContent, type AuthorizerContent } from '../artifacts/content-types/authorizer.js';
import { authorizerType, baseType } from '../artifacts/content-types/index.js';
import type { ArtifactDoc, ArtifactStore } from '../store/artifacts.js';
import type { SecretStore } from '../store/secrets.js';
import type { OAuthClient } from './oauth.js';
import { pinOf, type AuthorizerPin } from './pin.js';

/** Why an authorizer cannot be used now (gone, not an authorizer, archived, its secret deleted). */
export class AuthorizerUnusable extends Error {
  override name = 'AuthorizerUnusable';
}

/** An authorizer artifact's content, if it can be used now. */
export function authorizerOf(doc: ArtifactDoc): AuthorizerContent {
  if (doc.archived_at) throw new AuthorizerUnusable(`Authorizer ${doc._id} is archived; unarchive it to use it.`);
  const parsed = authorizerContent.safeParse(JSON.parse(doc.content));
  if (!parsed.success) throw new AuthorizerUnusable(`Authorizer ${doc._id} is invalid: ${parsed.error.issues[0]!.message}.`);
  return parsed.data;
}

/** The authorizer's content, read fresh. */
export async function loadAuthorizer(artifacts: ArtifactStore, id: string): Promise<{ doc: ArtifactDoc; content: AuthorizerContent }> {
  const doc = await artifacts.get(id);
  if (!doc || baseType(doc.content_type) !== authorizerType) throw new AuthorizerUnusable(`Authorizer ${id} no longer exists.`);
  return { doc, content: authorizerOf(doc) };
}

/**
 * The authorizer as an OAuth client: its client secret opened from the secret store (it belongs to
 * whoever last wrote the authorizer); `pin` is what the client was made from (one read: the pin
 * checked is the authorizer the token request goes to).
 */
export async function oauthClient(
  artifacts: ArtifactStore,
  secrets: SecretStore,
  id: string,
): Promise<OAuthClient & { pin: AuthorizerPin }> {
  const { doc, content } = await loadAuthorizer(artifacts, id);
  const pin = pinOf(doc);
  if (!content.secret_id) return { authorizer: content, clientSecret: null, pin };
  const clientSecret = await secrets.reveal(doc.secrets_owner ?? doc.provenance.created_by, content.secret_id);
  if (clientSecret === null)
    throw new AuthorizerUnusable(
      `The client secret of authorizer ${id} no longer exists; store it again with POST /secrets and update the authorizer.`,
    );
  return { authorizer: content, clientSecret, pin };
}
