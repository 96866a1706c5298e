import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, generateKeyPair, jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { createLogger } from '../../src/kernel/logging/logger.js';
import { SigningKeys } from '../../src/identity/signing-keys.js';
import { loadKeyRing } from '../../src/main/bootstrap/master-key.js';
import { Api } from '../helpers/http.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
// Per-account throttling and per-IP limits are off here: these tests exercise the layers beneath
// them (the scrypt bound among them); test/sign-in-flood.test.ts exercises them.
before(async () => (platform = await startPlatform({ SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0' }, { worker: false })));
after(() => platform.close());

const workspaceCount = () => platform.services.db.collection('workspaces').countDocuments();

async function assertRejected(token: string, reason: RegExp) {
  const before = await workspaceCount();
  const reply = await platform.api.withToken(token).post('/workspaces', { name: 'should not exist' });
  assert.equal(reply.status, 401, reply.text);
  assert.equal(reply.body.type, 'urn:platform:problem:unauthorized');
  assert.match(reply.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
  assert.match(reply.body.detail, reason);
  assert.equal(await workspaceCount(), before, 'nothing written');
}

/** Claims a genuine token would carry, for forging variations of it. */
async function genuineClaims() {
  const admin = await platform.admin();
  const { payload } = await jwtVerify(admin.token!, createRemoteJWKSet(new URL(`${platform.url}/.well-known/jwks.json`)));
  return payload;
}

describe('sign-in', () => {
  it('issues an RS256 JWT with a kid, verifiable against the published JWKS, whose sub is the user UUID', async () => {
    const reply = await platform.api.post('/auth/login', { email: adminEmail, password: adminPassword });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.token_type, 'bearer');
    assert.equal(reply.body.expires_in, 3600);
    const header = decodeProtectedHeader(reply.body.access_token);
    assert.equal(header.alg, 'RS256');
    assert.ok(header.kid);
    const { payload } = await jwtVerify(reply.body.access_token, createRemoteJWKSet(new URL(`${platform.url}/.well-known/jwks.json`)), {
      issuer: platform.config.apiUri,
    });
    assert.match(payload.sub!, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(payload.exp! - payload.iat!, 3600);
  });

  it('accepts the e-mail in any case', async () => {
    const reply = await platform.api.post('/auth/login', { email: adminEmail.toUpperCase(), password: adminPassword });
    assert.equal(reply.status, 200);
  });

  it('refuses a wrong password and an unknown e-mail alike', async () => {
    const wrong = await platform.api.post('/auth/login', { email: adminEmail, password: 'not the password' });
    const unknown = await platform.api.post('/auth/login', { email: 'nobody@example.test', password: 'whatever it is' });
    for (const reply of [wrong, unknown]) {
      assert.equal(reply.status, 401);
      assert.equal(reply.body.type, 'urn:platform:problem:invalid-credentials');
    }
    assert.equal(wrong.body.detail, unknown.body.detail);
  });

  it('validates the login body', async () => {
    const reply = await platform.api.post('/auth/login', { email: 'not-an-email' });
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.body.invalid_params.map((p: { name: string }) => p.name).sort(), ['email', 'password']);
  });

  it('refuses a flood of sign-ins with 429 instead of exhausting the machine', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, () => platform.api.post('/auth/login', { email: adminEmail, password: 'wrong password' })),
    );
    const statuses = replies.map((r) => r.status);
    assert.ok(
      statuses.every((s) => s === 401 || s === 429),
      `statuses ${[...new Set(statuses)]}`,
    );
    const busy = replies.filter((r) => r.status === 429);
    assert.ok(busy.length > 0, 'some were refused');
    assert.equal(busy[0]!.headers.get('retry-after'), '1');
    assert.equal(busy[0]!.body.type, 'urn:platform:problem:too-many-requests');
    assert.equal(
      (await platform.api.post('/auth/login', { email: adminEmail, password: adminPassword })).status,
      200,
      'and sign-in works again after',
    );
  });

  it('never logs the password or the token', async () => {
    const admin = await platform.admin();
    await admin.get('/workspaces');
    const logs = platform.logs.join('');
    assert.ok(logs.includes('"path":"/auth/login"'), 'requests are logged');
    assert.ok(!logs.includes(adminPassword));
    assert.ok(!logs.includes(admin.token!));
  });
});

describe('bearer tokens', () => {
  it('refuses a request without a token', async () => {
    const reply = await platform.api.post('/workspaces', { name: 'x' });
    assert.equal(reply.status, 401);
    // RFC 6750 §3.1: a request with no credentials gets the challenge without an error code.
    assert.match(reply.headers.get('www-authenticate') ?? '', /^Bearer resource_metadata="[^"]+"$/);
  });

  it('refuses a non-bearer Authorization header', async () => {
    const reply = await platform.api.request('GET', '/workspaces', { headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } });
    assert.equal(reply.status, 401);
  });

  it('refuses garbage', () => assertRejected('not.a.jwt', /malformed/));

  it('refuses an expired token signed by the real key', async () => {
    const { kid, privateKey } = await platform.services.signingKeys.signingKey();
    const claims = await genuineClaims();
    const token = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) - 60, iat: Math.floor(Date.now() / 1000) - 3700 })
      .setProtectedHeader({ alg: 'RS256', kid })
      .sign(privateKey);
    await assertRejected(token, /expired/);
  });

  it('refuses a token forged with another key under the real kid', async () => {
    const { kid } = await platform.services.signingKeys.signingKey();
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT(await genuineClaims()).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
    await assertRejected(token, /signature/);
  });

  it('refuses alg=none', async () => {
    const token = new UnsecuredJWT(await genuineClaims()).encode();
    await assertRejected(token, /algorithm/);
  });

  it('refuses HS256 keyed with the public key (algorithm confusion)', async () => {
    const { kid } = await platform.services.signingKeys.signingKey();
    const jwk = platform.services.signingKeys.jwks().keys.find((k) => k.kid === kid)!;
    const secret = new TextEncoder().encode(JSON.stringify(jwk));
    const token = await new SignJWT(await genuineClaims()).setProtectedHeader({ alg: 'HS256', kid }).sign(secret);
    await assertRejected(token, /algorithm/);
  });

  it('refuses a token from another issuer', async () => {
    const { kid, privateKey } = await platform.services.signingKeys.signingKey();
    const token = await new SignJWT({ ...(await genuineClaims()), iss: 'https://elsewhere.example' })
      .setProtectedHeader({ alg: 'RS256', kid })
      .sign(privateKey);
    await assertRejected(token, /iss/);
  });

  it('names the API as the audience of the tokens it issues', async () => {
    assert.equal((await genuineClaims()).aud, platform.config.apiUri);
  });

  it('refuses a token signed by the real key for another audience, or for none (REST and /mcp)', async () => {
    const { kid, privateKey } = await platform.services.signingKeys.signingKey();
    const { aud: _aud, ...claims } = await genuineClaims();
    const sign = (extra: Record<string, unknown>) =>
      new SignJWT({ ...claims, ...extra }).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
    // A delegation JWT is meant for a server: its audience is the server's client id (SPEC §5.7).
    for (const token of [await sign({ aud: 'acme-crm' }), await sign({}), await sign({ aud: `${platform.config.apiUri}/elsewhere` })]) {
      await assertRejected(token, /aud/);
      const mcp = await platform.api.withToken(token).request('POST', '/mcp', {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: { accept: 'application/json, text/event-stream' },
      });
      assert.equal(mcp.status, 401, mcp.text);
    }
    assert.equal(
      (await platform.api.withToken(await sign({ aud: platform.config.apiUri })).get('/workspaces')).status,
      200,
      'the same claims with the API as audience pass',
    );
  });

  it('refuses a token whose subject does not exist', async () => {
    const { kid, privateKey } = await platform.services.signingKeys.signingKey();
    const token = await new SignJWT({ ...(await genuineClaims()), sub: '0190b5a0-0000-7000-8000-000000000001' })
      .setProtectedHeader({ alg: 'RS256', kid })
      .sign(privateKey);
    await assertRejected(token, /subject/);
  });

  it('refuses a token with an unknown kid', async () => {
    const { privateKey } = await platform.services.signingKeys.signingKey();
    const token = await new SignJWT(await genuineClaims()).setProtectedHeader({ alg: 'RS256', kid: 'no-such-kid' }).sign(privateKey);
    await assertRejected(token, /unknown key/);
  });
});

describe('signing keys', () => {
  it('stores the private key encrypted, never in the clear', async () => {
    const docs = await platform.services.db.collection('signing_keys').find().toArray();
    assert.ok(docs.length >= 1);
    for (const doc of docs) {
      assert.ok(!JSON.stringify(doc).includes('PRIVATE KEY'));
      assert.deepEqual(Object.keys(doc.private_key).sort(), ['ct', 'iv', 'kid', 'tag']);
    }
  });

  it('rotates: old tokens keep working, new tokens use the new kid, the JWKS lists both', async () => {
    const admin = await platform.admin();
    const oldKid = decodeProtectedHeader(admin.token!).kid;
    const user = await platform.newUser();
    assert.equal((await user.post('/admin/signing-keys/rotate')).status, 403, 'only an admin rotates');
    const rotated = await admin.post('/admin/signing-keys/rotate');
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.kid, oldKid);
    const kids = (await platform.api.get('/.well-known/jwks.json')).body.keys.map((k: { kid: string }) => k.kid);
    assert.ok(kids.includes(oldKid) && kids.includes(rotated.body.kid));
    assert.equal((await admin.get('/workspaces')).status, 200, 'a token signed before rotation still verifies');
    const fresh = await platform.admin();
    assert.equal(decodeProtectedHeader(fresh.token!).kid, rotated.body.kid);
    assert.equal((await fresh.get('/workspaces')).status, 200);
  });

  it('drops a retired key from the JWKS once its tokens have expired', async () => {
    const { db, config } = platform.services;
    const longAgo = new Date(Date.now() - (config.ACCESS_TOKEN_TTL_SECONDS + 60) * 1000);
    await db.collection('signing_keys').updateMany({ retired_at: { $ne: null } }, { $set: { retired_at: longAgo } });
    // A replica that loads the keys now publishes only the current one.
    const replica = new SigningKeys(db, loadKeyRing(config, createLogger('silent')), config.ACCESS_TOKEN_TTL_SECONDS);
    await replica.init();
    const { kid } = await replica.signingKey();
    assert.deepEqual(
      replica.jwks().keys.map((k) => k.kid),
      [kid],
    );
  });

  it('publishes only public key material', async () => {
    const { keys } = (await new Api(platform.url).get('/.well-known/jwks.json')).body;
    for (const key of keys) {
      assert.equal(key.kty, 'RSA');
      assert.equal(key.alg, 'RS256');
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(key[secret], undefined);
    }
  });
});

describe('administration', () => {
  it('lets only an admin create users, and refuses a duplicate e-mail', async () => {
    const user = await platform.newUser();
    const refused = await user.post('/users', { email: 'x@example.test', password: 'long enough password' });
    assert.equal(refused.status, 403);
    const admin = await platform.admin();
    const dup = await admin.post('/users', { email: adminEmail, password: 'long enough password' });
    assert.equal(dup.status, 409);
    const short = await admin.post('/users', { email: 'y@example.test', password: 'short' });
    assert.equal(short.status, 400);
  });
});
