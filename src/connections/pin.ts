import type { ArtifactDoc } from '../store/artifacts.js';

/**
 * What a person consented to, taken from the authorizer when the consent attempt began and recorded on
 * the connection when its code was exchanged: where tokens come from (token_url), where the person
 * signed in (auth_url without its query), which client asked, and which protected resource the tokens
 * are for (the auth_url's RFC 8707 `resource`, the resource discovery recorded). An authorizer is an
 * artifact any editor of its workspace may change; a connection is used (projected, refreshed,
 * revoked) only while the authorizer still says what the person consented to.
 */
export interface AuthorizerPin {
  token_url: string;
  auth_endpoint: string;
  resource: string | null;
  client_id: string;
  discovered_resource: string | null;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The pin of the authorizer as it is now; read leniently (an invalid authorizer gives a pin nothing matches). */
export function pinOf(doc: Pick<ArtifactDoc, 'content' | 'context'>): AuthorizerPin {
  let content: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(doc.content);
    if (parsed && typeof parsed === 'object') content = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: every field empty.
  }
  let authEndpoint = '';
  let resource: string | null = null;
  try {
    const url = new URL(str(content.auth_url));
    authEndpoint = url.origin + url.pathname;
    resource = url.searchParams.get('resource');
  } catch {
    // Not a URL.
  }
  const discovered = (doc.context?.discovered as { resource?: unknown } | undefined)?.resource;
  return {
    token_url: str(content.token_url),
    auth_endpoint: authEndpoint,
    resource,
    client_id: str(content.client_id),
    discovered_resource: typeof discovered === 'string' && discovered ? discovered : null,
  };
}

const fields: Record<keyof AuthorizerPin, string> = {
  token_url: 'token_url',
  auth_endpoint: 'auth_url',
  resource: "auth_url's resource",
  client_id: 'client_id',
  discovered_resource: 'the discovered resource',
};

/**
 * What changed since the person consented, as a message names it; empty when nothing did. A
 * connection with no pin (made before pins were recorded) counts as changed: whether its authorizer
 * was edited since cannot be told, and a wrong guess sends a person's token to whoever edited it.
 */
export function pinChanges(pinned: AuthorizerPin | undefined, current: AuthorizerPin): string[] {
  if (!pinned) return ['unknown (the connection was made before connections recorded their authorizer)'];
  return (Object.keys(fields) as (keyof AuthorizerPin)[]).filter((k) => (pinned[k] ?? null) !== (current[k] ?? null)).map((k) => fields[k]);
}

/** The detail a connection records when its authorizer no longer says what its person consented to. */
export const authorizerChanged = (authorizerId: string, changed: readonly string[]) => ({
  code: 'authorizer_changed',
  detail: `authorizer ${authorizerId} changed since you connected (${changed.join(', ')}); no token was sent`,
});
