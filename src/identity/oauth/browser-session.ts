import { randomUUID } from 'node:crypto';
import { sha256 } from '../../kernel/crypto/opaque.js';
import type { OAuthStore } from '../../store/oauth.js';
import type { PendingSignIn } from '../external-idp/index.js';
import { TokenError, type TokenService } from '../tokens.js';

/** A validated authorization request, carried between the sign-in and consent pages as a signed token. */
export interface AuthorizationRequest {
  client_id: string;
  redirect_uri: string;
  state?: string;
  code_challenge: string;
  scope: string[];
  resource: string;
  /** The issuer the client discovered (RFC 9207 `iss` in the response). */
  issuer: string;
}

/** Where an external sign-in goes on to: the authorization request it interrupted, or the person's authorizations. */
export type SignInThen = { request: AuthorizationRequest } | { next: 'consents' };

const sessionTtl = 8 * 3600;
const requestTtl = 15 * 60;

/** A signed-in browser: the person, and the id of this session (its sign-out ends what was issued through it). */
export interface BrowserSession {
  person: string;
  id: string;
  expiresAt: Date;
}

/**
 * The browser side of sign-in: a person's session (an HttpOnly cookie holding a short JWT) and the
 * pending authorization request (a signed token in the pages' forms). Both are signed by the
 * platform's keys for audiences of their own, so neither is ever accepted as an API bearer token.
 * A session carries an id (`sid`); signing out records its end (a unique insert keyed by that id),
 * which every replica reads whenever it accepts the cookie, so a copied cookie dies with the sign-out.
 */
export class BrowserSessions {
  private readonly sessionAudience: string;
  private readonly requestAudience: string;
  private readonly externalAudience: string;

  constructor(
    private readonly tokens: TokenService,
    private readonly store: Pick<OAuthStore, 'endSession' | 'isSessionEnded'>,
  ) {
    this.sessionAudience = `${tokens.audience}/oauth#session`;
    this.requestAudience = `${tokens.audience}/oauth#request`;
    this.externalAudience = `${tokens.audience}/oauth#external`;
  }

  async startSession(personId: string, via: string): Promise<string> {
    const claims = { kind: 'browser_session', via, sid: randomUUID() };
    return (await this.tokens.issue(personId, claims, sessionTtl, this.sessionAudience)).access_token;
  }

  /** The cookie's session as signed, ended or not; null when absent, expired, not ours, or from before sessions had ids. */
  private async signed(cookie: string | undefined): Promise<BrowserSession | null> {
    if (!cookie) return null;
    try {
      const claims = await this.tokens.verify(cookie, this.sessionAudience);
      if (claims.kind !== 'browser_session' || typeof claims.sid !== 'string' || typeof claims.exp !== 'number') return null;
      return { person: claims.sub, id: claims.sid, expiresAt: new Date(claims.exp * 1000) };
    } catch (err) {
      if (err instanceof TokenError) return null;
      throw err;
    }
  }

  /** The signed-in session, or null when the cookie is absent, expired, not ours, or signed out (on any replica). */
  async session(cookie: string | undefined): Promise<BrowserSession | null> {
    const session = await this.signed(cookie);
    return session && !(await this.store.isSessionEnded(session.id)) ? session : null;
  }

  /** The signed-in person, or null (see session()). */
  async sessionPerson(cookie: string | undefined): Promise<string | null> {
    return (await this.session(cookie))?.person ?? null;
  }

  /** Signs the cookie's session out for every replica; a cookie that is no valid session needs nothing. */
  async endSession(cookie: string | undefined): Promise<void> {
    const session = await this.signed(cookie);
    if (session)
      await this.store.endSession({ _id: session.id, person_id: session.person, ended_at: new Date(), expires_at: session.expiresAt });
  }

  async sealRequest(request: AuthorizationRequest): Promise<string> {
    return (await this.tokens.issue(request.client_id, { kind: 'oauth_request', req: request }, requestTtl, this.requestAudience))
      .access_token;
  }

  /** The request sealed by sealRequest; throws TokenError when it was altered or has expired. */
  async openRequest(sealed: string): Promise<AuthorizationRequest> {
    const claims = await this.tokens.verify(sealed, this.requestAudience);
    if (claims.kind !== 'oauth_request') throw new TokenError('not an authorization request');
    return claims.req as AuthorizationRequest;
  }

  /** What an external sign-in keeps until the person returns from their IdP: an HttpOnly cookie's value. */
  async sealExternalSignIn(pending: PendingSignIn, then: SignInThen): Promise<string> {
    const claims = { kind: 'external_sign_in', pending, then };
    return (await this.tokens.issue(pending.provider, claims, requestTtl, this.externalAudience)).access_token;
  }

  /** The pending external sign-in, or null when the cookie is absent, altered or expired. */
  async openExternalSignIn(sealed: string | undefined): Promise<{ pending: PendingSignIn; then: SignInThen } | null> {
    if (!sealed) return null;
    try {
      const claims = await this.tokens.verify(sealed, this.externalAudience);
      return claims.kind === 'external_sign_in' ? { pending: claims.pending as PendingSignIn, then: claims.then as SignInThen } : null;
    } catch (err) {
      if (err instanceof TokenError) return null;
      throw err;
    }
  }

  /**
   * The consent form's anti-forgery value: bound to this browser's session cookie (which no other
   * site can read) and to this request, so a decision cannot be posted from elsewhere or replayed
   * onto another request.
   */
  formToken(sessionCookie: string, sealedRequest: string): string {
    return sha256(`${sessionCookie}\n${sealedRequest}`);
  }
}
