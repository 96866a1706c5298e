// Human sign-in with external OpenID Connect providers (issue #19, SPEC §5.10), against a real
// `oidc-provider` on loopback reached through the guarded outbound client, and the accounts it makes
// in a real database: who is admitted, what a tampered or refused callback gives, and that concurrent
// first sign-ins of one identity end with one person.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Db } from 'mongodb';
import type { StoreClient } from '../../src/store/mongo.js';
import {
  ExternalAccounts,
  ExternalIdentityProviders,
  ExternalSignInError,
  parseIdentityProviders,
  type ExternalIdentity,
  type IdentityProviderConfig,
} from '../../src/identity/external-idp/index.js';
import { verifyPassword } from '../../src/identity/passwords.js';
import { createOutbound, type Outbound } from '../../src/net/outbound.js';
import { ExternalIdentityStore, externalIdentityKey } from '../../src/store/external-identities.js';
import { createStoreClient, ensureIndexes, openDatabase } from '../../src/store/mongo.js';
import { UserStore } from '../../src/store/users.js';
import { followAsBrowser, startOidcIdp, type OidcIdp } from '../helpers/oauth-provider.js';

const redirectUri = 'http://127.0.0.1:9/auth/external/callback';
const atCallback = (url: URL) => url.href.startsWith(redirectUri);

let idp: OidcIdp;
let userinfoIdp: OidcIdp;
let outbound: Outbound;
let client: StoreClient;
let db: Db;
let users: UserStore;
let links: ExternalIdentityStore;

before(async () => {
  [idp, userinfoIdp] = await Promise.all([startOidcIdp(), startOidcIdp({ claimsIn: 'userinfo' })]);
  // The IdP is on loopback: the administrator's outbound policy allows it, as MCP_OUTBOUND_ALLOW would.
  outbound = createOutbound({ allow: ['127.0.0.0/8'], timeoutMs: 5000, maxResponseBytes: 1 << 20 });
  const uri = process.env.TEST_STORE_URI;
  if (!uri) throw new Error('TEST_STORE_URI is not set: run with `npm test -- test/identity/external-idp`');
  client = createStoreClient(uri);
  db = openDatabase(client, `test_${randomBytes(4).toString('hex')}`);
  await ensureIndexes(db);
  users = new UserStore(db);
  links = new ExternalIdentityStore(db);
});
after(async () => {
  await outbound?.close();
  await db?.dropDatabase().catch(() => undefined);
  await client?.close();
  await Promise.all([idp?.close(), userinfoIdp?.close()]);
});

const account = (email?: string, verified = true) => {
  const sub = `sub-${randomBytes(6).toString('hex')}`;
  idp.accounts.set(sub, { ...(email ? { email, email_verified: verified } : {}), name: `Person ${sub}` });
  return sub;
};

/** A provider for `idp` with a freshly registered client; `extra` sets the allow-lists and the rest. */
function provider(
  extra: Partial<IdentityProviderConfig> & object,
  options: { public?: boolean; alg?: 'RS256' | 'ES256'; on?: OidcIdp } = {},
) {
  const on = options.on ?? idp;
  const registered = on.registerClient(redirectUri, options);
  const name = `idp-${randomBytes(3).toString('hex')}`;
  return parseIdentityProviders(JSON.stringify([{ name, label: 'Corp SSO', issuer: on.issuer, ...registered, ...extra }]))[0]!;
}

/** The whole flow as a person's browser goes through it, signing in at the IdP as `sub`. */
async function signIn(
  providers: ExternalIdentityProviders,
  name: string,
  sub: string,
  on = idp,
  tamper?: (q: Record<string, string>) => void,
) {
  const { authorizationUrl, pending } = await providers.beginSignIn(name, redirectUri);
  on.person = { decision: 'approve', account: sub };
  const { url } = await followAsBrowser(authorizationUrl, { stopAt: atCallback });
  assert.ok(atCallback(url), `the browser ended at ${url.href}, not the callback`);
  const query = Object.fromEntries(url.searchParams);
  tamper?.(query);
  return providers.completeSignIn(pending, query);
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

describe('external sign-in: the OpenID Connect flow', () => {
  it('a full sign-in yields the identity the IdP verified (confidential client, RS256)', async () => {
    const p = provider({ allowed_emails: ['Ada@Example.test'] });
    const providers = new ExternalIdentityProviders([p], outbound);
    assert.deepEqual(providers.list(), [{ name: p.name, label: 'Corp SSO' }]);
    const sub = account('ada@example.test');
    const { authorizationUrl } = await providers.beginSignIn(p.name, redirectUri);
    const sent = new URL(authorizationUrl).searchParams;
    assert.equal(sent.get('code_challenge_method'), 'S256');
    assert.ok(sent.get('nonce') && sent.get('state') && sent.get('code_challenge'));
    const identity = await signIn(providers, p.name, sub);
    assert.deepEqual(identity, {
      provider: p.name,
      issuer: idp.issuer,
      subject: sub,
      email: 'ada@example.test',
      emailVerified: true,
      name: `Person ${sub}`,
    });
  });

  it('a public client (PKCE only, no secret) with ES256 id_tokens signs in', async () => {
    const p = provider({ allowed_domains: ['example.test'] }, { public: true, alg: 'ES256' });
    assert.equal(p.client_secret, undefined);
    const sub = account('grace@example.test');
    const identity = await signIn(new ExternalIdentityProviders([p], outbound), p.name, sub);
    assert.equal(identity.subject, sub);
    assert.equal(identity.emailVerified, true);
  });

  it('takes the e-mail from the userinfo endpoint when the id_token carries none', async () => {
    const p = provider({ allowed_emails: ['linus@example.test'] }, { on: userinfoIdp });
    userinfoIdp.accounts.set('linus', { email: 'linus@example.test', email_verified: true });
    const identity = await signIn(new ExternalIdentityProviders([p], outbound), p.name, 'linus', userinfoIdp);
    assert.equal(identity.email, 'linus@example.test');
    assert.equal(identity.emailVerified, true);
  });

  it('an e-mail outside the allow-list is refused with not_allowed', async () => {
    const p = provider({ allowed_emails: ['ada@example.test'] });
    const err = await refusal(signIn(new ExternalIdentityProviders([p], outbound), p.name, account('mallory@example.test')));
    assert.equal(err.code, 'not_allowed');
    assert.match(err.message, /Corp SSO account \(mallory@example\.test\) is not allowed/);
  });

  it('an unverified e-mail is not admitted, even one on the allow-list', async () => {
    const p = provider({ allowed_emails: ['ada@example.test'], allowed_domains: ['example.test'] });
    const err = await refusal(signIn(new ExternalIdentityProviders([p], outbound), p.name, account('ada@example.test', false)));
    assert.equal(err.code, 'not_allowed');
  });

  it('a domain allow-list admits another address at the domain, and not a subdomain', async () => {
    const p = provider({ allowed_domains: ['corp.test'] });
    const providers = new ExternalIdentityProviders([p], outbound);
    const identity = await signIn(providers, p.name, account('someone.else@CORP.test'));
    assert.equal(identity.email, 'someone.else@corp.test');
    assert.equal((await refusal(signIn(providers, p.name, account('x@eu.corp.test')))).code, 'not_allowed');
  });

  it('a subject allow-list admits an account without an e-mail', async () => {
    const sub = account();
    const p = provider({ allowed_subjects: [sub] });
    const identity = await signIn(new ExternalIdentityProviders([p], outbound), p.name, sub);
    assert.deepEqual([identity.subject, identity.email, identity.emailVerified], [sub, null, false]);
  });

  it('a tampered state is refused with invalid_state', async () => {
    const p = provider({ allow_any: true });
    const providers = new ExternalIdentityProviders([p], outbound);
    const err = await refusal(signIn(providers, p.name, account('eve@example.test'), idp, (q) => (q.state = `${q.state}x`)));
    assert.equal(err.code, 'invalid_state');
    const missing = await refusal(signIn(providers, p.name, account('eve@example.test'), idp, (q) => delete q.state));
    assert.equal(missing.code, 'invalid_state');
  });

  it("an IdP's error=access_denied is reported as idp_error", async () => {
    const p = provider({ allow_any: true });
    const providers = new ExternalIdentityProviders([p], outbound);
    const { authorizationUrl, pending } = await providers.beginSignIn(p.name, redirectUri);
    idp.person = { decision: 'deny', account: account('bob@example.test') };
    const { url } = await followAsBrowser(authorizationUrl, { stopAt: atCallback });
    assert.equal(url.searchParams.get('error'), 'access_denied');
    const err = await refusal(providers.completeSignIn(pending, Object.fromEntries(url.searchParams)));
    assert.equal(err.code, 'idp_error');
    assert.equal(err.message, 'The sign-in was cancelled or refused at Corp SSO.');
    idp.person.decision = 'approve';
  });

  it('a callback used twice is refused the second time (the IdP does not redeem a code twice)', async () => {
    const p = provider({ allow_any: true });
    const providers = new ExternalIdentityProviders([p], outbound);
    const { authorizationUrl, pending } = await providers.beginSignIn(p.name, redirectUri);
    idp.person = { decision: 'approve', account: account('replay@example.test') };
    const { url } = await followAsBrowser(authorizationUrl, { stopAt: atCallback });
    await providers.completeSignIn(pending, Object.fromEntries(url.searchParams));
    const err = await refusal(providers.completeSignIn(pending, Object.fromEntries(url.searchParams)));
    assert.equal(err.code, 'idp_error');
  });

  it('a callback naming another issuer (RFC 9207 iss) is refused with invalid_response', async () => {
    const p = provider({ allow_any: true });
    const providers = new ExternalIdentityProviders([p], outbound);
    const err = await refusal(signIn(providers, p.name, account('mix@example.test'), idp, (q) => (q.iss = 'https://evil.example')));
    assert.equal(err.code, 'invalid_response');
  });

  it('an IdP whose discovery names another issuer is refused; one the outbound policy refuses is unreachable', async () => {
    const p = provider({ allow_any: true });
    const elsewhere = { ...p, issuer: idp.issuer.replace('127.0.0.1', 'localhost') };
    const mismatch = await refusal(new ExternalIdentityProviders([elsewhere], outbound).beginSignIn(p.name, redirectUri));
    assert.equal(mismatch.code, 'invalid_response');
    assert.match(mismatch.detail!, /names issuer/);
    const strict = createOutbound({ allow: [], timeoutMs: 5000, maxResponseBytes: 1 << 20 });
    try {
      const refused = await refusal(new ExternalIdentityProviders([p], strict).beginSignIn(p.name, redirectUri));
      assert.equal(refused.code, 'unreachable');
      assert.doesNotMatch(refused.message, /127\.0\.0\.1/);
    } finally {
      await strict.close();
    }
  });
});

describe('external sign-in: the person behind an identity', () => {
  it('the first sign-in creates the account, the second finds the same person; no password opens it', async () => {
    const p = provider({ allowed_domains: ['people.test'] });
    const providers = new ExternalIdentityProviders([p], outbound);
    const accounts = new ExternalAccounts(links, users, [p]);
    const sub = account('first@people.test');
    const first = await accounts.findOrCreatePerson(await signIn(providers, p.name, sub));
    assert.equal(first.created, true);
    const second = await accounts.findOrCreatePerson(await signIn(providers, p.name, sub));
    assert.deepEqual(second, { personId: first.personId, created: false });
    const user = (await users.findById(first.personId))!;
    assert.equal(user.email, 'first@people.test');
    assert.equal(user.is_admin, false);
    assert.equal(await verifyPassword('', user.password_hash), false);
    assert.equal(await verifyPassword(user.password_hash, user.password_hash), false);
    const link = (await links.find(idp.issuer, sub))!;
    assert.deepEqual([link._id, link.person_id, link.provider], [externalIdentityKey(idp.issuer, sub), first.personId, p.name]);
  });

  it('an identity without a verified e-mail gets an account at a never-real .invalid address', async () => {
    const sub = account('claimed@people.test', false);
    const p = provider({ allowed_subjects: [sub] });
    const identity = await signIn(new ExternalIdentityProviders([p], outbound), p.name, sub);
    const { personId } = await new ExternalAccounts(links, users, [p]).findOrCreatePerson(identity);
    assert.match((await users.findById(personId))!.email, new RegExp(`^[0-9a-f]{32}@${p.name}\\.external\\.invalid$`));
    assert.equal(await users.findByEmail('claimed@people.test'), null, 'an unverified e-mail names no account');
  });

  it('8 concurrent first sign-ins of one identity produce exactly one person', async () => {
    const p = provider({ allowed_domains: ['race.test'] });
    const providers = new ExternalIdentityProviders([p], outbound);
    const sub = account('racer@race.test');
    // Eight complete sign-ins at the IdP, then all eight find-or-create at once.
    const identities = await Promise.all(Array.from({ length: 8 }, () => signIn(providers, p.name, sub)));
    const accounts = new ExternalAccounts(links, users, [p]);
    const results = await Promise.all(identities.map((identity) => accounts.findOrCreatePerson(identity)));
    assert.equal(new Set(results.map((r) => r.personId)).size, 1, 'every sign-in ends at the same person');
    assert.equal(results.filter((r) => r.created).length, 1, 'one of them made the account');
    assert.equal(await db.collection('users').countDocuments({ email: 'racer@race.test' }), 1);
    assert.equal(await db.collection('external_identities').countDocuments({ subject: sub }), 1);

    // Many more rounds straight at the store, with and without an e-mail: never a second account.
    for (let round = 0; round < 10; round++) {
      const identity: ExternalIdentity = {
        provider: p.name,
        issuer: idp.issuer,
        subject: `round-${round}-${randomBytes(4).toString('hex')}`,
        email: round % 2 ? `r${round}-${randomBytes(3).toString('hex')}@race.test` : null,
        emailVerified: round % 2 === 1,
      };
      const before = await db.collection('users').countDocuments();
      const people = await Promise.all(Array.from({ length: 8 }, () => accounts.findOrCreatePerson(identity)));
      assert.equal(new Set(people.map((r) => r.personId)).size, 1, `round ${round}: more than one person`);
      assert.equal(await db.collection('users').countDocuments(), before + 1, `round ${round}: not exactly one new account`);
    }
  });

  it('an existing account with the e-mail: refused without trust_email, linked with it (verified e-mail only)', async () => {
    const existing = await users.create('owner@trust.test', 'scrypt$x', false);
    const sub = account('owner@trust.test');
    const wary = provider({ allowed_domains: ['trust.test'] });
    const identity = await signIn(new ExternalIdentityProviders([wary], outbound), wary.name, sub);
    const refused = await refusal(new ExternalAccounts(links, users, [wary]).findOrCreatePerson(identity));
    assert.equal(refused.code, 'account_exists');
    assert.equal(await links.find(idp.issuer, sub), null, 'a refusal leaves no link');

    const trusting = { ...wary, trust_email: true };
    const linked = await new ExternalAccounts(links, users, [trusting]).findOrCreatePerson(identity);
    assert.deepEqual(linked, { personId: existing._id, created: false });

    // An unverified claim to the same e-mail neither links nor collides: it gets an account of its own.
    const claimant = account('owner@trust.test', false);
    const loose = provider({ allowed_subjects: [claimant], trust_email: true });
    const claimed = await signIn(new ExternalIdentityProviders([loose], outbound), loose.name, claimant);
    const other = await new ExternalAccounts(links, users, [loose]).findOrCreatePerson(claimed);
    assert.notEqual(other.personId, existing._id);
  });
});
