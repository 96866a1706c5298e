// Delegation tokens (SPEC §5.7) without engines: what the platform mints (claims, typ, scopes no wider
// than the person's, the viewer's and the credential's), what the SDK's verifier accepts, and that the
// platform's own token verification refuses a delegation token.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { DelegationTokens, delegationRequest, intersectScopes, type DelegationRequest } from '../../src/identity/delegation.js';
import { userPrincipal, type Principal } from '../../src/identity/principal.js';
import type { SigningKeys } from '../../src/identity/signing-keys.js';
import { TokenError, TokenService } from '../../src/identity/tokens.js';
import { DelegationError, verifyDelegation } from '../../src/platform-sdk/delegation.js';

const issuer = 'https://platform.test';
const clientId = 'notes.k3j9x2ab1';
const person = '0190a0a0-0000-7000-8000-000000000001';
const workspaceId = '0190a0a0-0000-7000-8000-0000000000aa';

const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
const kid = 'key-1';
const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }] };
// Only what minting and verifying read of the signing keys.
const keys = {
  signingKey: async () => ({ kid, privateKey }),
  verificationKey: async (k: string) => (k === kid ? (publicKey as CryptoKey) : null),
} as unknown as SigningKeys;

let jwksFetches = 0;
const jwksFetch = (async (url: string | URL) => {
  jwksFetches += 1;
  assert.equal(String(url), `${issuer}/.well-known/jwks.json`);
  return new Response(JSON.stringify(jwks), { headers: { 'content-type': 'application/json' } });
}) as typeof fetch;
const verifyAs = (token: unknown, options: { clientId?: string; now?: () => number } = {}) =>
  verifyDelegation(token, { platformUrl: issuer, clientId, fetch: jwksFetch, ...options });

const request: DelegationRequest = {
  person,
  actor: 'platform-console',
  session: 'c2Vzc2lvbi1kaWdlc3QtMQ',
  scopes: ['artifact:read', 'artifact:write', 'artifact:manage', 'artifact:invoke', 'search:read', 'stream:read'],
  workspaceId,
};
const minter = new DelegationTokens(keys, issuer);

describe('delegation tokens: minting', () => {
  it('names the person, the console and its session, the workspace, and the credential as audience, for five minutes', async () => {
    const token = await minter.mint(request, { clientId, scopes: ['artifact:read', 'artifact:invoke', 'stream:ingest'] });
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'RS256', kid, typ: 'delegation+jwt' });
    const claims = decodeJwt(token);
    assert.deepEqual(Object.keys(claims).sort(), ['act', 'aud', 'exp', 'iat', 'iss', 'jti', 'kind', 'scope', 'sub', 'workspace_id']);
    assert.equal(claims.iss, issuer);
    assert.equal(claims.aud, clientId);
    assert.equal(claims.sub, person);
    assert.equal(claims.kind, 'delegation');
    assert.equal(claims.workspace_id, workspaceId);
    assert.deepEqual(claims.act, { sub: 'platform-console', sid: request.session });
    assert.equal(claims.exp! - claims.iat!, 300);
    // The person's ∩ the viewer's (no manage, no streams) ∩ the credential's.
    assert.equal(claims.scope, 'artifact:read artifact:invoke');
    const again = decodeJwt(await minter.mint(request, { clientId, scopes: ['artifact:read'] }));
    assert.notEqual(again.jti, claims.jti, 'every token has its own jti');
  });

  it('intersects coarse and fine scopes, never widening either side', () => {
    assert.deepEqual(intersectScopes(['artifact:read', 'artifact:write'], ['artifact:read', 'search:read']), ['artifact:read']);
    assert.deepEqual(intersectScopes(['artifact:read'], ['resource:text/*:read', 'tool:*:invoke']), ['resource:text/*:read']);
    assert.deepEqual(intersectScopes(['resource:text/*:read'], ['resource:text/markdown:read']), ['resource:text/markdown:read']);
    assert.deepEqual(intersectScopes(['resource:text/markdown:read'], ['resource:text/*:write']), []);
    assert.deepEqual(intersectScopes(['artifact:read', 'resource:text/*:read'], ['artifact:read']), ['artifact:read']);
    assert.deepEqual(intersectScopes([], ['artifact:read']), []);
  });

  it('is asked for a console principal only, with its scopes narrowed by its grants on the workspace', () => {
    const viaConsole: Principal = { ...userPrincipal(person, false), console: { clientId: 'platform-console', family: 'fam-1' } };
    const shared = { _id: workspaceId, owner_id: 'someone-else', shares: [{ person_id: person, flags: 'RI' }] };
    const asked = delegationRequest(viaConsole, shared)!;
    assert.deepEqual(asked.scopes.sort(), ['artifact:invoke', 'artifact:read']);
    assert.equal(asked.actor, 'platform-console');
    assert.match(asked.session!, /^[A-Za-z0-9_-]{22}$/);
    assert.ok(!asked.session!.includes('fam-1'), 'the session is a digest, not the token family');
    const owner = delegationRequest(viaConsole, { ...shared, owner_id: person })!.scopes.sort();
    assert.deepEqual(
      owner,
      ['artifact:invoke', 'artifact:manage', 'artifact:read', 'artifact:write', 'search:read'],
      'streams are never delegated',
    );
    assert.equal(delegationRequest(userPrincipal(person, false), shared), null, 'a plain sign-in token gets none');
    const server: Principal = { ...viaConsole, actor: { kind: 'server_credential', id: clientId } };
    assert.equal(delegationRequest(server, shared), null);
  });
});

describe('delegation tokens: verifying (platform SDK)', () => {
  it('accepts a token for its own client id, against the JWKS, and fetches the JWKS once', async () => {
    const token = await minter.mint(request, { clientId, scopes: ['artifact:read'] });
    const before = jwksFetches;
    const claims = await verifyAs(token);
    assert.equal(claims.sub, person);
    assert.equal(claims.aud, clientId);
    assert.equal(claims.scope, 'artifact:read');
    await verifyAs(token);
    assert.ok(jwksFetches - before <= 1, 'the JWKS is cached');
  });

  it('refuses another audience, an expired token, a tampered one, a foreign key, and an access token', async () => {
    const token = await minter.mint(request, { clientId, scopes: ['artifact:read'] });
    await assert.rejects(verifyAs(token, { clientId: 'other.k3j9x2ab1' }), /another audience/);
    await assert.rejects(verifyAs(token, { now: () => Date.now() + 301_000 + 30_000 }), /expired/);
    await assert.rejects(verifyAs(token, { now: () => Date.now() - 120_000 }), /future/);
    const [h, p, s] = token.split('.');
    const widened = Buffer.from(JSON.stringify({ ...decodeJwt(token), scope: 'artifact:read artifact:write' })).toString('base64url');
    await assert.rejects(verifyAs(`${h}.${widened}.${s}`), /signature is invalid/);
    await assert.rejects(verifyAs(`${h}.${p}`), DelegationError);
    await assert.rejects(verifyAs(undefined), /no delegation token/);

    const other = await generateKeyPair('RS256');
    const forged = await new SignJWT(decodeJwt(token))
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'delegation+jwt' })
      .sign(other.privateKey);
    await assert.rejects(verifyAs(forged), /signature is invalid/);

    // An access token, even one addressed to the server, is not a delegation token.
    const access = await new TokenService(keys, issuer, 3600).issue(person, {}, 3600, clientId);
    await assert.rejects(verifyAs(access.access_token), /typ is not delegation\+jwt/);
    const untyped = await new SignJWT({ ...decodeJwt(token) }).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(privateKey);
    await assert.rejects(verifyAs(untyped), /typ/);
  });

  it('is refused by the platform as an access token, whatever audience it is checked for', async () => {
    const tokens = new TokenService(keys, issuer, 3600);
    const token = await minter.mint(request, { clientId, scopes: ['artifact:read'] });
    await assert.rejects(tokens.verify(token), (err) => err instanceof TokenError && /delegation token/.test(err.message));
    await assert.rejects(tokens.verify(token, clientId), (err) => err instanceof TokenError && /delegation token/.test(err.message));
    // The same claims under the access token's typ still fail on the audience.
    const retyped = await new SignJWT(decodeJwt(token)).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(privateKey);
    await assert.rejects(tokens.verify(retyped), /claim aud is invalid/);
  });
});
