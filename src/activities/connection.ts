import { ApplicationFailure } from '@temporalio/activity';
import { AuthorizerUnusable, loadAuthorizer, oauthClient } from '../connections/authorizers.js';
import { callbackUrl } from '../connections/ids.js';
import {
  authorizationUrl,
  newState,
  pkcePair,
  requestTokens,
  revoke,
  stateHash,
  TokenEndpointError,
  type OAuthClient,
  type TokenResponse,
} from '../connections/oauth.js';
import { authorizerChanged, pinChanges, pinOf, type AuthorizerPin } from '../connections/pin.js';
import type { FetchLike } from '../net/outbound.js';
import type { ArtifactStore } from '../store/artifacts.js';
import type { ConnectionDoc, ConnectionStore } from '../store/connections.js';
import type { SecretStore } from '../store/secrets.js';
import { type TokenState } from '../workflows/contracts/connection-flow.js';

/** Why a consent or a refresh failed, as the connection records it: a code and a detail a person can read. */
export interface ConnectionFailure {
  code: string;
  detail: string;
}

interface Deps {
  connections: ConnectionStore;
  artifacts: ArtifactStore;
  secrets: SecretStore;
  fetch: FetchLike;
  apiUri: string;
}

const gone = (id: string) => ApplicationFailure.nonRetryable(`Connection ${id} no longer exists.`, 'ConnectionGone');

/** What the connection workflow keeps of a token set: a version and times, never a token. */
function tokenState(doc: Pick<ConnectionDoc, 'token_version' | 'expires_at' | 'lifetime_seconds' | 'has_refresh_token'>): TokenState {
  return {
    tokenVersion: doc.token_version,
    refreshable: doc.has_refresh_token ?? false,
    ...(doc.expires_at ? { expiresAt: doc.expires_at.getTime() } : {}),
    ...(doc.lifetime_seconds ? { lifetimeMs: doc.lifetime_seconds * 1000 } : {}),
  };
}

/** Turns a gone authorizer into a non-retryable failure, and a token endpoint's 5xx into a retried one. */
async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof AuthorizerUnusable) throw ApplicationFailure.nonRetryable(err.message, 'AuthorizerUnusable');
    if (err instanceof TokenEndpointError && err.retryable) throw ApplicationFailure.retryable(err.message, 'TokenEndpointUnavailable');
    throw err;
  }
}

/** The OAuth client of the connection's authorizer (its secret opened only here, in the activity). */
const client = (deps: Deps, doc: ConnectionDoc): Promise<OAuthClient & { pin: AuthorizerPin }> =>
  oauthClient(deps.artifacts, deps.secrets, doc.authorizer_id);
const load = async (deps: Deps, id: string) => (await deps.connections.get(id)) ?? Promise.reject(gone(id));

async function store(
  deps: Deps,
  doc: ConnectionDoc,
  issued: TokenResponse,
  previous: { refresh_token?: string } | null,
  refreshed: boolean,
  pin?: AuthorizerPin,
): Promise<TokenState> {
  const stored = await deps.connections.storeTokens(
    doc._id,
    // A provider that does not rotate refresh tokens sends none on refresh: the old one stays good.
    {
      access_token: issued.access_token,
      token_type: issued.token_type,
      ...((issued.refresh_token ?? previous?.refresh_token) ? { refresh_token: issued.refresh_token ?? previous!.refresh_token! } : {}),
    },
    {
      ...(issued.expires_in !== undefined ? { expiresIn: issued.expires_in } : {}),
      ...(issued.scope !== undefined ? { scopes: issued.scope.split(' ').filter(Boolean) } : {}),
      refreshed,
      ...(pin ? { pin } : {}),
    },
  );
  if (!stored) throw gone(doc._id);
  return tokenState(stored);
}

/** An active connection keeps its tokens and notes the error; any other fails. */
async function recordFailure(deps: Deps, doc: ConnectionDoc, error: ConnectionFailure): Promise<void> {
  if (doc.status === 'active') await deps.connections.noteError(doc._id, error);
  else await deps.connections.fail(doc._id, 'failed', error);
}

/** The activities the connection workflow (workflows/connection-flow.ts) calls, by these names. */
export function createConnectionActivities(deps: Deps) {
  return {
    /** A consent attempt: a fresh `state` and PKCE verifier, kept sealed; the redirect URL is sealed with them. */
    async beginConnectionAttempt(input: { connectionId: string; attemptId: string; expiresAt: number }): Promise<void> {
      return guarded(() => beginAttempt(deps, input));
    },

    /** The provider's answer to an attempt: its error, or a code exchanged (with the verifier) for tokens. */
    async completeConnectionAttempt(input: { connectionId: string; attemptId: string }): Promise<AttemptOutcome> {
      return guarded(() => completeAttempt(deps, input));
    },

    async recordConnectionFailure(input: { connectionId: string; attemptId?: string; error: ConnectionFailure }): Promise<void> {
      const doc = await deps.connections.get(input.connectionId);
      if (doc) await recordFailure(deps, doc, input.error);
      if (input.attemptId) await deps.connections.spendAttempt(input.attemptId);
    },

    /**
     * Refreshes the tokens unless they changed since `tokenVersion`. A refresh token the provider no
     * longer accepts (revoked, expired) leaves the connection needing new consent.
     */
    async refreshConnectionTokens(input: {
      connectionId: string;
      tokenVersion: number;
    }): Promise<TokenState | { status: 'needs_reconsent' }> {
      return guarded(() => refreshTokens(deps, input));
    },

    /** Revokes the grant at the provider where it can (RFC 7009), then deletes the record and its attempts. */
    async revokeConnection(input: { connectionId: string; atProvider: boolean }): Promise<{ revoked_at_provider: boolean }> {
      return revokeAndDelete(deps, input);
    },
  };
}

type AttemptOutcome = { ok: true; tokens: TokenState } | { ok: false; error: ConnectionFailure; recorded: true };

async function beginAttempt(deps: Deps, input: { connectionId: string; attemptId: string; expiresAt: number }): Promise<void> {
  const { connections } = deps;
  const doc = await load(deps, input.connectionId);
  const { doc: authorizer, content } = await loadAuthorizer(deps.artifacts, doc.authorizer_id);
  const state = newState();
  const pkce = content.pkce ? pkcePair() : undefined;
  const redirectUri = callbackUrl(deps.apiUri, doc.authorizer_id);
  await connections.createAttempt({
    _id: stateHash(state),
    attempt_id: input.attemptId,
    connection_id: doc._id,
    user_id: doc.user_id,
    authorizer_id: doc.authorizer_id,
    ...(pkce ? { verifier: pkce.verifier } : {}),
    authorization_url: authorizationUrl(content, { state, redirectUri, ...(pkce ? { challenge: pkce.challenge } : {}) }),
    redirect_uri: redirectUri,
    authorizer_pin: pinOf(authorizer),
    created_at: new Date(),
    expires_at: new Date(input.expiresAt),
  });
  await connections.dropOtherAttempts(doc._id, input.attemptId);
  if (doc.status !== 'active') await connections.setPending(doc._id);
}

async function completeAttempt(deps: Deps, input: { connectionId: string; attemptId: string }): Promise<AttemptOutcome> {
  const { connections } = deps;
  const doc = await load(deps, input.connectionId);
  const attempt = await connections.attemptById(input.attemptId);
  // Every failure is recorded and spends the attempt: a second callback for it finds nothing to use.
  const fail = async (error: ConnectionFailure) => {
    await recordFailure(deps, doc, error);
    await connections.spendAttempt(input.attemptId);
    return { ok: false as const, error, recorded: true as const };
  };
  if (!attempt?.outcome) return fail({ code: 'consent_expired', detail: 'The sign-in attempt is no longer on record; start again.' });
  const { error, error_description } = attempt.outcome;
  if (error) {
    const said = error_description ? `${error}: ${error_description}` : error;
    return fail(
      error === 'access_denied'
        ? { code: 'access_denied', detail: `Access was denied at the provider (${said}).` }
        : { code: 'provider_error', detail: `The provider answered with an error (${said}).` },
    );
  }
  const { code, verifier } = connections.openAttempt(attempt);
  if (!code) return fail({ code: 'consent_expired', detail: 'The authorization code was already used.' });
  const oauth = await client(deps, doc);
  // The code goes only to the token_url of the authorizer the person was sent to consent at; the
  // connection is pinned to that authorizer (an attempt begun before pins were recorded takes today's).
  const changed = attempt.authorizer_pin ? pinChanges(attempt.authorizer_pin, oauth.pin) : [];
  if (changed.length)
    return fail({
      code: 'authorizer_changed',
      detail: `Authorizer ${doc.authorizer_id} changed while you were signing in (${changed.join(', ')}); the authorization code was not used. Connect again.`,
    });
  try {
    const issued = await requestTokens(deps.fetch, oauth, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: attempt.redirect_uri,
      ...(verifier ? { code_verifier: verifier } : {}),
    });
    const tokens = await store(deps, doc, issued, null, false, oauth.pin);
    await connections.spendAttempt(input.attemptId);
    return { ok: true as const, tokens };
  } catch (err) {
    if (err instanceof TokenEndpointError && !err.retryable)
      return fail({ code: 'token_rejected', detail: `The provider refused the authorization code: ${err.message}` });
    throw err;
  }
}

async function refreshTokens(
  deps: Deps,
  input: { connectionId: string; tokenVersion: number },
): Promise<TokenState | { status: 'needs_reconsent' }> {
  const { connections } = deps;
  const doc = await load(deps, input.connectionId);
  if (doc.status !== 'active') return { status: 'needs_reconsent' as const };
  // Another refresh got there first: its tokens stand.
  if (doc.token_version !== input.tokenVersion) return tokenState(doc);
  const tokens = connections.tokensOf(doc);
  if (!tokens?.refresh_token) {
    if (doc.expires_at && doc.expires_at.getTime() > Date.now()) return tokenState(doc);
    await connections.fail(doc._id, 'needs_reconsent', {
      code: 'refresh_rejected',
      detail: 'The access token expired and the provider issued no refresh token; connect again.',
    });
    return { status: 'needs_reconsent' as const };
  }
  // The refresh token goes only to the token endpoint the person consented with (connections/pin.ts).
  const oauth = await client(deps, doc);
  const changed = pinChanges(doc.authorizer_pin, oauth.pin);
  if (changed.length) {
    await connections.fail(doc._id, 'needs_reconsent', authorizerChanged(doc.authorizer_id, changed));
    return { status: 'needs_reconsent' as const };
  }
  try {
    const issued = await requestTokens(deps.fetch, oauth, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    return await store(deps, doc, issued, tokens, true);
  } catch (err) {
    if (!(err instanceof TokenEndpointError) || err.retryable) throw err;
    await connections.fail(doc._id, 'needs_reconsent', {
      code: 'refresh_rejected',
      detail: `The provider no longer accepts the refresh token (${err.message}); connect again.`,
    });
    return { status: 'needs_reconsent' as const };
  }
}

async function revokeAndDelete(
  deps: Deps,
  input: { connectionId: string; atProvider: boolean },
): Promise<{ revoked_at_provider: boolean }> {
  const { connections } = deps;
  const doc = await connections.get(input.connectionId);
  if (!doc) return { revoked_at_provider: false };
  const tokens = input.atProvider ? connections.tokensOf(doc) : null;
  let revoked = false;
  if (tokens) {
    try {
      const token = tokens.refresh_token
        ? { value: tokens.refresh_token, hint: 'refresh_token' as const }
        : { value: tokens.access_token, hint: 'access_token' as const };
      const oauth = await client(deps, doc);
      // An authorizer changed since the person consented may point at someone else's host: nothing is sent there.
      if (!pinChanges(doc.authorizer_pin, oauth.pin).length) revoked = await revoke(deps.fetch, oauth, token);
    } catch (err) {
      if (err instanceof TokenEndpointError && err.retryable) throw ApplicationFailure.retryable(err.message, 'TokenEndpointUnavailable');
      // A gone authorizer or a refusal: the provider keeps its grant; the tokens are deleted here all the same.
    }
  }
  await connections.delete(doc._id);
  return { revoked_at_provider: revoked };
}
