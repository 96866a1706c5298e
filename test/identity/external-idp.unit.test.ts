// External sign-in without engines: the administrator's configuration and its errors, the allow-list,
// and the id_token checks against a scripted IdP behind a fake Outbound (key rotation, forged tokens,
// discovery caching, an IdP that cannot be reached).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import {
  ExternalIdentityProviders,
  ExternalSignInError,
  isAllowed,
  parseIdentityProviders,
  type IdentityProviderConfig,
  type PendingSignIn,
} from '../../src/identity/external-idp/index.js';
import type { Outbound } from '../../src/net/outbound.js';

const issuer = 'https://idp.example.test';
const base = { name: 'corp', label: 'Corp SSO', issuer, client_id: 'platform' };
const parseOne = (extra: object) => parseIdentityProviders(JSON.stringify([{ ...base, ...extra }]))[0]!;

describe('identity provider configuration', () => {
  it('parses a provider with defaults: openid email profile, not open to anyone, e-mail not trusted', () => {
    const p = parseOne({ client_secret: 's3cret', allowed_emails: [' Ada@Example.TEST'], allowed_domains: ['Corp.Test'] });
    assert.equal(p.scopes, 'openid email profile');
    assert.deepEqual([p.allow_any, p.trust_email], [false, false]);
    assert.deepEqual(p.allowed_emails, ['ada@example.test']);
    assert.deepEqual(p.allowed_domains, ['corp.test']);
    assert.equal(parseOne({ allow_any: true }).client_secret, undefined);
    assert.deepEqual(parseIdentityProviders('[]'), []);
  });

  const refused: [string, unknown, RegExp][] = [
    [
      'no allow-list at all',
      [base],
      /provider 1 \("corp"\): allowed_emails: no allow-list: give allowed_emails, allowed_domains or allowed_subjects, or allow_any: true/,
    ],
    ['only empty allow-lists', [{ ...base, allowed_emails: [] }], /no allow-list/],
    ['allow_any beside a list', [{ ...base, allow_any: true, allowed_subjects: ['x'] }], /allow_any: allow_any admits everyone/],
    ['a domain with an @', [{ ...base, allowed_domains: ['@corp.test'] }], /allowed_domains\.0: must be a domain name/],
    ['a bad e-mail', [{ ...base, allowed_emails: ['nobody'] }], /allowed_emails\.0: /],
    ['an http issuer off loopback', [{ ...base, issuer: 'http://idp.example.test', allow_any: true }], /issuer: must be an https URL/],
    ['an issuer with a query', [{ ...base, issuer: 'https://idp.example.test/?x=1', allow_any: true }], /issuer: must have no query/],
    ['scopes without openid', [{ ...base, scopes: 'email', allow_any: true }], /scopes: must include openid/],
    ['a name that is not a slug', [{ ...base, name: 'Corp SSO', allow_any: true }], /provider 1 \("Corp SSO"\): name: must be a slug/],
    ['a misspelt field', [{ ...base, allow_any: true, allowed_email: ['a@b.test'] }], /provider 1 \("corp"\): .*allowed_email/],
    ['a missing client_id', [{ name: 'x', label: 'X', issuer, allow_any: true }], /provider 1 \("x"\): client_id: /],
    [
      'two providers of one name',
      [
        { ...base, allow_any: true },
        { ...base, allow_any: true },
      ],
      /provider 2 \("corp"\): name: "corp" is used by two/,
    ],
    ['not an array', { ...base }, /identity providers: /],
  ];
  for (const [what, value, message] of refused) {
    it(`refuses ${what}, naming the field`, () => assert.throws(() => parseIdentityProviders(JSON.stringify(value)), message));
  }

  it('refuses JSON that does not parse, saying so', () => {
    assert.throws(() => parseIdentityProviders('[{', 'EXTERNAL_IDENTITY_PROVIDERS'), /^Error: EXTERNAL_IDENTITY_PROVIDERS: not valid JSON/);
  });

  it('allows http issuers on loopback, for development', () => {
    assert.equal(parseOne({ issuer: 'http://127.0.0.1:8080', allow_any: true }).issuer, 'http://127.0.0.1:8080');
    assert.equal(parseOne({ issuer: 'http://localhost:8080/realms/dev', allow_any: true }).issuer, 'http://localhost:8080/realms/dev');
  });
});

describe('the allow-list', () => {
  const lists = { allow_any: false, allowed_emails: ['ada@example.test'], allowed_domains: ['corp.test'], allowed_subjects: ['sub-1'] };
  const cases: [string, { subject: string; email: string | null; emailVerified: boolean }, boolean][] = [
    ['a listed subject, without an e-mail', { subject: 'sub-1', email: null, emailVerified: false }, true],
    ['a listed e-mail, in another case', { subject: 'x', email: 'ADA@example.TEST', emailVerified: true }, true],
    ['a listed e-mail the IdP did not verify', { subject: 'x', email: 'ada@example.test', emailVerified: false }, false],
    ['an address at a listed domain', { subject: 'x', email: 'bob@Corp.test', emailVerified: true }, true],
    ['an address at a subdomain of a listed domain', { subject: 'x', email: 'bob@eu.corp.test', emailVerified: true }, false],
    ['an address whose domain merely ends like one', { subject: 'x', email: 'bob@evilcorp.test', emailVerified: true }, false],
    ['an unverified address at a listed domain', { subject: 'x', email: 'bob@corp.test', emailVerified: false }, false],
    ['a subject that is not listed (case matters)', { subject: 'SUB-1', email: null, emailVerified: false }, false],
  ];
  for (const [what, identity, expected] of cases) {
    it(`${expected ? 'admits' : 'refuses'} ${what}`, () => assert.equal(isAllowed(lists, identity), expected));
  }
  it('allow_any admits anyone, e-mail or not', () => {
    assert.equal(isAllowed({ allow_any: true }, { subject: 'x', email: null, emailVerified: false }), true);
  });
});

/** An IdP behind a fake Outbound: discovery, JWKS and a token endpoint whose id_token each test writes. */
async function scriptedIdp() {
  const key = async (alg: 'RS256' | 'ES256', kid: string) => {
    const pair = await generateKeyPair(alg, { extractable: true });
    return { alg, kid, privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' } };
  };
  const idp = {
    keys: [await key('RS256', 'k1')] as { alg: string; kid: string; privateKey: CryptoKey; jwk: JWK }[],
    fetched: [] as string[],
    tokenRequests: [] as { headers: Headers; body: URLSearchParams }[],
    tokenStatus: 200,
    down: false,
    /** The id_token the token endpoint gives for the request's code (the nonce travels in the code). */
    idToken: async (claims: Record<string, unknown>, sign: { kid?: string; secret?: string } = {}) => {
      if (sign.secret) {
        return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(sign.secret));
      }
      const k = idp.keys.find((x) => x.kid === (sign.kid ?? idp.keys[0]!.kid))!;
      return new SignJWT(claims).setProtectedHeader({ alg: k.alg, kid: k.kid }).sign(k.privateKey);
    },
    nextToken: (async (nonce: string) =>
      idp.idToken({
        iss: issuer,
        aud: 'platform',
        sub: 'sub-1',
        nonce,
        iat: now(),
        exp: now() + 300,
        email: 'ada@example.test',
        email_verified: true,
      })) as (nonce: string) => Promise<string>,
    key,
  };
  const now = () => Math.floor(Date.now() / 1000);
  const outbound: Outbound = {
    fetch: async () => assert.fail('the sign-in uses fetchJson'),
    check: async () => undefined,
    close: async () => undefined,
    async fetchJson(url, init) {
      const href = String(url);
      idp.fetched.push(href);
      if (idp.down) throw new Error('connect ECONNREFUSED 10.0.0.7:443');
      if (href === `${issuer}/.well-known/openid-configuration`) {
        return {
          status: 200,
          body: {
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            jwks_uri: `${issuer}/jwks`,
          },
        };
      }
      if (href === `${issuer}/jwks`) return { status: 200, body: { keys: idp.keys.map((k) => k.jwk) } };
      if (href === `${issuer}/token`) {
        const body = new URLSearchParams(String(init?.body));
        idp.tokenRequests.push({ headers: new Headers(init?.headers), body });
        if (idp.tokenStatus !== 200) return { status: idp.tokenStatus, body: { error: 'server_error' } };
        return { status: 200, body: { id_token: await idp.nextToken(body.get('code')!), access_token: 'at', token_type: 'Bearer' } };
      }
      return { status: 404, body: null };
    },
  };
  return { idp, outbound, now };
}

async function refusal(work: Promise<unknown>): Promise<ExternalSignInError> {
  try {
    await work;
  } catch (err) {
    assert.ok(err instanceof ExternalSignInError, `expected an ExternalSignInError, got ${String(err)}`);
    return err;
  }
  assert.fail('the sign-in was expected to be refused');
}

describe('the sign-in flow against a scripted IdP', () => {
  const provider = (extra: Partial<IdentityProviderConfig> = {}) =>
    parseOne({ client_secret: 'top secret', allowed_emails: ['ada@example.test'], ...extra });

  /** Begins, and completes with the callback an honest IdP would send: the code is the nonce, so the token endpoint can echo it. */
  async function roundTrip(providers: ExternalIdentityProviders, edit: (p: PendingSignIn) => PendingSignIn = (p) => p) {
    const { authorizationUrl, pending } = await providers.beginSignIn('corp', 'https://platform.test/cb');
    const sent = new URL(authorizationUrl).searchParams;
    return providers.completeSignIn(edit(pending), { code: sent.get('nonce')!, state: sent.get('state')!, iss: issuer });
  }

  it('sends the code with client_secret_basic and the PKCE verifier, and returns the verified identity', async () => {
    const { idp, outbound } = await scriptedIdp();
    const providers = new ExternalIdentityProviders([provider()], outbound);
    const identity = await roundTrip(providers);
    assert.deepEqual(identity, { provider: 'corp', issuer, subject: 'sub-1', email: 'ada@example.test', emailVerified: true });
    const [request] = idp.tokenRequests;
    assert.equal(request!.headers.get('authorization'), `Basic ${Buffer.from('platform:top%20secret').toString('base64')}`);
    assert.equal(request!.body.get('client_id'), null);
    assert.ok(request!.body.get('code_verifier'));
    assert.equal(request!.body.get('redirect_uri'), 'https://platform.test/cb');
  });

  it('a public client names itself in the body and sends no secret', async () => {
    const { idp, outbound } = await scriptedIdp();
    await roundTrip(new ExternalIdentityProviders([provider({ client_secret: undefined })], outbound));
    assert.equal(idp.tokenRequests[0]!.headers.get('authorization'), null);
    assert.equal(idp.tokenRequests[0]!.body.get('client_id'), 'platform');
  });

  it('after a key rotation, fetches the keys once more and verifies with the new key', async () => {
    const { idp, outbound } = await scriptedIdp();
    let clock = Date.now();
    const providers = new ExternalIdentityProviders([provider()], outbound, undefined, { now: () => clock });
    await roundTrip(providers);
    idp.keys = [await idp.key('ES256', 'k2')];
    const jwksBefore = idp.fetched.filter((u) => u.endsWith('/jwks')).length;
    clock += 31_000; // the keys are fetched again at most once per 30 s
    assert.equal((await roundTrip(providers)).subject, 'sub-1');
    assert.equal(idp.fetched.filter((u) => u.endsWith('/jwks')).length, jwksBefore + 1);
    // A token naming a key the IdP does not publish: refused, without fetching the keys again right away.
    const stranger = await idp.key('RS256', 'k9');
    idp.nextToken = async (nonce) =>
      new SignJWT({ iss: issuer, aud: 'platform', sub: 'sub-1', nonce, email: 'ada@example.test', email_verified: true })
        .setProtectedHeader({ alg: 'RS256', kid: 'k9' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(stranger.privateKey);
    assert.equal((await refusal(roundTrip(providers))).code, 'invalid_response');
    assert.equal(idp.fetched.filter((u) => u.endsWith('/jwks')).length, jwksBefore + 1);
  });

  const forged: [string, (idp: Awaited<ReturnType<typeof scriptedIdp>>) => (nonce: string) => Promise<string>][] = [
    [
      'an HS256 token keyed with the client secret',
      ({ idp, now }) =>
        (nonce) =>
          idp.idToken({ iss: issuer, aud: 'platform', sub: 's', nonce, iat: now(), exp: now() + 300 }, { secret: 'top secret' }),
    ],
    [
      'another nonce',
      ({ idp, now }) =>
        () =>
          idp.idToken({ iss: issuer, aud: 'platform', sub: 's', nonce: 'other', iat: now(), exp: now() + 300 }),
    ],
    [
      'another audience',
      ({ idp, now }) =>
        (nonce) =>
          idp.idToken({ iss: issuer, aud: 'someone-else', sub: 's', nonce, iat: now(), exp: now() + 300 }),
    ],
    [
      'two audiences without azp',
      ({ idp, now }) =>
        (nonce) =>
          idp.idToken({ iss: issuer, aud: ['platform', 'x'], sub: 's', nonce, iat: now(), exp: now() + 300 }),
    ],
    [
      'another issuer',
      ({ idp, now }) =>
        (nonce) =>
          idp.idToken({ iss: 'https://evil.test', aud: 'platform', sub: 's', nonce, iat: now(), exp: now() + 300 }),
    ],
    [
      'an expired token',
      ({ idp, now }) =>
        (nonce) =>
          idp.idToken({ iss: issuer, aud: 'platform', sub: 's', nonce, iat: now() - 900, exp: now() - 300 }),
    ],
    [
      'no sub',
      ({ idp, now }) =>
        (nonce) =>
          idp.idToken({ iss: issuer, aud: 'platform', nonce, iat: now(), exp: now() + 300 }),
    ],
  ];
  for (const [what, make] of forged) {
    it(`refuses an id_token with ${what} as invalid_response`, async () => {
      const scripted = await scriptedIdp();
      scripted.idp.nextToken = make(scripted);
      const err = await refusal(roundTrip(new ExternalIdentityProviders([provider({ allowed_subjects: ['s'] })], scripted.outbound)));
      assert.equal(err.code, 'invalid_response');
      assert.match(err.message, /Corp SSO answered in a way that could not be verified/);
    });
  }

  it('keeps the discovery document for its TTL, then asks again', async () => {
    const { idp, outbound } = await scriptedIdp();
    let clock = Date.now();
    const providers = new ExternalIdentityProviders([provider()], outbound, undefined, { metadataTtlMs: 60_000, now: () => clock });
    await providers.beginSignIn('corp', 'https://platform.test/cb');
    await providers.beginSignIn('corp', 'https://platform.test/cb');
    assert.equal(idp.fetched.filter((u) => u.includes('openid-configuration')).length, 1);
    clock += 61_000;
    await providers.beginSignIn('corp', 'https://platform.test/cb');
    assert.equal(idp.fetched.filter((u) => u.includes('openid-configuration')).length, 2);
  });

  it('an IdP that cannot be reached, or answers 5xx, is unreachable; the message names no address', async () => {
    const { idp, outbound } = await scriptedIdp();
    const providers = new ExternalIdentityProviders([provider()], outbound);
    idp.down = true;
    const down = await refusal(providers.beginSignIn('corp', 'https://platform.test/cb'));
    assert.equal(down.code, 'unreachable');
    assert.equal(down.message, 'Corp SSO could not be reached. Please try again later.');
    assert.match(down.detail!, /ECONNREFUSED/);
    idp.down = false;
    idp.tokenStatus = 503;
    assert.equal((await refusal(roundTrip(providers))).code, 'unreachable');
  });

  it('an expired pending sign-in, an unknown provider or a missing code is refused before the token endpoint', async () => {
    const { idp, outbound } = await scriptedIdp();
    const providers = new ExternalIdentityProviders([provider()], outbound);
    assert.equal((await refusal(roundTrip(providers, (p) => ({ ...p, createdAt: p.createdAt - 11 * 60_000 })))).code, 'invalid_state');
    assert.equal((await refusal(roundTrip(providers, (p) => ({ ...p, provider: 'other' })))).code, 'invalid_state');
    assert.equal((await refusal(providers.beginSignIn('other', 'https://platform.test/cb'))).code, 'unknown_provider');
    const { pending } = await providers.beginSignIn('corp', 'https://platform.test/cb');
    assert.equal((await refusal(providers.completeSignIn(pending, { state: pending.state, iss: issuer }))).code, 'invalid_response');
    const twice = { state: [pending.state, pending.state], code: 'c', iss: issuer };
    assert.equal((await refusal(providers.completeSignIn(pending, twice))).code, 'invalid_state', 'a state given twice counts as none');
    assert.equal(idp.tokenRequests.length, 0);
  });
});
