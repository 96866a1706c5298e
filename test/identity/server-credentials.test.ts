import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Api } from '../helpers/http.js';
import { asServer, createApiKey, createServerCredential, exchange } from '../helpers/credentials.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
});
after(() => platform.close());

const credDoc = (id: string) => platform.services.db.collection('server_credentials').findOne({ _id: id as never });

describe('server credentials', () => {
  it('creates a credential whose secret is shown once and stored only as a hash', async () => {
    const reply = await alice.post('/server-credentials', {
      client_id: 'acme-crm',
      name: 'ACME CRM',
      server_id: 'crm',
      host_id: 'host-a',
      scopes: ['artifact:read', 'search:read'],
      resource_filters: { workspaces: '*', collections: [] },
    });
    assert.equal(reply.status, 201, reply.text);
    assert.match(reply.body.client_secret, /^scs_[0-9A-Za-z]{43}$/);
    assert.equal(reply.body.authority, platform.config.apiUri);
    assert.deepEqual(reply.body.resource_filters, { workspaces: '*', collections: [] });
    assert.equal(reply.body.last_used_at, null);
    const clientId = reply.body.client_id;
    assert.match(clientId, /^acme-crm\.[0-9A-Za-z]{9}$/, "the chosen name in the creator's namespace");
    const doc = await credDoc(clientId);
    assert.ok(!JSON.stringify(doc).includes(reply.body.client_secret));
    assert.match(doc!.secret_hash, /^scrypt\$/);

    const one = await alice.get(`/server-credentials/${clientId}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.client_secret, undefined);
    const list = await alice.get('/server-credentials');
    assert.ok(list.body.items.some((c: { client_id: string }) => c.client_id === clientId));
    assert.ok(!list.text.includes('scs_'));
    const again = await alice.post('/server-credentials', {
      client_id: 'acme-crm',
      name: 'x',
      server_id: 's',
      host_id: 'h',
      scopes: ['artifact:read'],
    });
    assert.equal(again.status, 409, "the creator's own name is taken");
    assert.equal(again.body.type, 'urn:platform:problem:client-id-taken');
  });

  it('keeps client_ids per creator: the same chosen name neither collides nor tells anything', async () => {
    const body = { client_id: 'shared-name', name: 'x', server_id: 's', host_id: 'h', scopes: ['artifact:read'] };
    const bob = await platform.newUser();
    const mine = await alice.post('/server-credentials', body);
    const theirs = await bob.post('/server-credentials', body);
    assert.equal(mine.status, 201, mine.text);
    assert.equal(theirs.status, 201, 'no 409 for a name someone else chose');
    assert.notEqual(mine.body.client_id, theirs.body.client_id);
    const namespace = (id: string) => id.slice(id.lastIndexOf('.') + 1);
    const aliceOther = await alice.post('/server-credentials', { ...body, client_id: 'other-name' });
    assert.equal(namespace(aliceOther.body.client_id), namespace(mine.body.client_id), 'one namespace per creator');
    assert.notEqual(namespace(theirs.body.client_id), namespace(mine.body.client_id));
    // Each exchanges its own secret under its own id; neither id takes the other's secret.
    const a = { client_id: mine.body.client_id, client_secret: mine.body.client_secret };
    const b = { client_id: theirs.body.client_id, client_secret: theirs.body.client_secret };
    assert.equal((await exchange(platform.url, a)).status, 200);
    assert.equal((await exchange(platform.url, b)).status, 200);
    assert.equal((await exchange(platform.url, { client_id: a.client_id, client_secret: b.client_secret })).status, 401);
    assert.equal(
      (await exchange(platform.url, { client_id: 'shared-name', client_secret: a.client_secret })).status,
      401,
      'the bare chosen name is no client_id',
    );
    assert.equal((await bob.get(`/server-credentials/${a.client_id}`)).status, 404);
    assert.equal((await bob.post('/server-credentials', body)).status, 409, "bob's own name is taken for bob");
    // Namespaces are made once per person, also when two first credentials are created at once.
    const carol = await platform.newUser();
    const both = await Promise.all(
      ['c-one', 'c-two', 'c-three'].map((client_id) => carol.post('/server-credentials', { ...body, client_id })),
    );
    assert.deepEqual(
      both.map((r) => r.status),
      [201, 201, 201],
    );
    assert.equal(new Set(both.map((r) => namespace(r.body.client_id))).size, 1);
  });

  it('refuses bad input, writing nothing', async () => {
    const before = await platform.services.db.collection('server_credentials').countDocuments();
    const bad = [
      { client_id: 'a b', name: 'x', server_id: 's', host_id: 'h', scopes: ['artifact:read'] },
      { client_id: 'x'.repeat(119), name: 'x', server_id: 's', host_id: 'h', scopes: ['artifact:read'] },
      { client_id: 'okid', name: 'x', server_id: 's', host_id: 'h', scopes: [] },
      { client_id: 'okid', name: 'x', server_id: 's', host_id: 'h', scopes: ['artifact:destroy'] },
      { client_id: 'okid', name: 'x', server_id: 's', host_id: 'h', scopes: ['artifact:read'], resource_filters: { workspaces: ['nope'] } },
    ];
    for (const body of bad) assert.equal((await alice.post('/server-credentials', body)).status, 400, JSON.stringify(body));
    assert.equal(await platform.services.db.collection('server_credentials').countDocuments(), before);
  });

  it('keeps each credential to its creator', async () => {
    const cred = await createServerCredential(alice, ['artifact:read']);
    const bob = await platform.newUser();
    assert.equal((await bob.get(`/server-credentials/${cred.client_id}`)).status, 404);
    assert.equal((await bob.post(`/server-credentials/${cred.client_id}/rotate`)).status, 404);
    assert.equal((await bob.delete(`/server-credentials/${cred.client_id}`)).status, 404);
    assert.ok(!(await bob.get('/server-credentials')).body.items.length);
    assert.ok(await exchange(platform.url, cred).then((r) => r.status === 200), 'untouched');
  });
});

describe('POST /auth/token', () => {
  it('exchanges client credentials for a 3600 s RS256 JWT with no refresh token, and records last_used_at', async () => {
    const cred = await createServerCredential(alice, ['artifact:read']);
    const reply = await exchange(platform.url, cred);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.token_type, 'bearer');
    assert.equal(reply.body.expires_in, 3600);
    assert.equal(reply.body.refresh_token, undefined);
    assert.equal(reply.headers.get('cache-control'), 'no-store');
    assert.equal(decodeProtectedHeader(reply.body.access_token).alg, 'RS256');
    const claims = decodeJwt(reply.body.access_token);
    assert.equal(claims.sub, cred.client_id);
    assert.equal(claims.exp! - claims.iat!, 3600);
    // Recorded beside the credential, never in its document (a racing rotation could be undone), and shown with it.
    const lastUsed = async () => (await alice.get(`/server-credentials/${cred.client_id}`)).body.last_used_at as string;
    const first = await lastUsed();
    assert.ok(first && !Number.isNaN(Date.parse(first)));
    assert.equal((await credDoc(cred.client_id))!.last_used_at, null);
    await new Promise((r) => setTimeout(r, 20));
    await exchange(platform.url, cred);
    assert.ok(Date.parse(await lastUsed()) > Date.parse(first), 'last_used_at moves on every exchange');
    assert.equal(
      (await alice.get('/server-credentials')).body.items.find((c: { client_id: string }) => c.client_id === cred.client_id).last_used_at,
      await lastUsed(),
    );
  });

  it('accepts HTTP Basic client authentication', async () => {
    const cred = await createServerCredential(alice, ['artifact:read']);
    const res = await fetch(`${platform.url}/auth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${cred.client_id}:${cred.client_secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    assert.equal(res.status, 200);
  });

  it('answers RFC 6749 errors', async () => {
    const cred = await createServerCredential(alice, ['artifact:read']);
    const cases: [Record<string, string>, number, string][] = [
      [{ client_secret: 'scs_wrong' }, 401, 'invalid_client'],
      [{ client_id: 'no-such-client' }, 401, 'invalid_client'],
      [{ grant_type: 'password' }, 400, 'unsupported_grant_type'],
      [{ grant_type: '' }, 400, 'invalid_request'],
      [{ scope: 'artifact:write' }, 400, 'invalid_scope'],
    ];
    for (const [extra, status, error] of cases) {
      const reply = await exchange(platform.url, cred, extra);
      assert.equal(reply.status, status, JSON.stringify(extra));
      assert.equal(reply.body.error, error);
      assert.ok(reply.body.error_description);
    }
    const json = await fetch(`${platform.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', ...cred }),
    });
    assert.equal(json.status, 400);
    assert.equal((await json.json()).error, 'invalid_request');
  });

  it('answers invalid_client, not a crash, to badly encoded Basic credentials', async () => {
    const res = await fetch(`${platform.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('a%zz:b').toString('base64')}` },
      body: 'grant_type=client_credentials',
    });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).error, 'invalid_client');
  });

  it('narrows the token to a requested subset of scopes', async () => {
    const cred = await createServerCredential(alice, ['artifact:read', 'artifact:write']);
    const reply = await exchange(platform.url, cred, { scope: 'artifact:read' });
    assert.equal(reply.body.scope, 'artifact:read');
    const server = alice.withToken(reply.body.access_token);
    assert.equal((await server.get('/workspaces')).status, 200);
    const refused = await server.post('/workspaces', { name: 'nope' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.type, 'urn:platform:problem:insufficient-scope');
    assert.equal(refused.body.required_scope, 'artifact:write');
    assert.match(refused.headers.get('www-authenticate') ?? '', /insufficient_scope/);
  });
});

describe('rotation, deactivation, deletion', () => {
  it('rotates: the old secret and its tokens fail at once, the new secret works', async () => {
    const cred = await createServerCredential(alice, ['artifact:read']);
    const server = await asServer(platform.url, cred);
    assert.equal((await server.get('/workspaces')).status, 200);
    const rotated = await alice.post(`/server-credentials/${cred.client_id}/rotate`);
    assert.equal(rotated.status, 200);
    assert.match(rotated.body.client_secret, /^scs_/);
    assert.notEqual(rotated.body.client_secret, cred.client_secret);
    assert.equal((await exchange(platform.url, cred)).status, 401, 'old secret rejected');
    assert.equal((await server.get('/workspaces')).status, 401, 'token from the old secret rejected');
    const fresh = await asServer(platform.url, { client_id: cred.client_id, client_secret: rotated.body.client_secret });
    assert.equal((await fresh.get('/workspaces')).status, 200);
  });

  it('deactivates with PATCH active=false and reactivates', async () => {
    const cred = await createServerCredential(alice, ['artifact:read']);
    const server = await asServer(platform.url, cred);
    const off = await alice.patch(`/server-credentials/${cred.client_id}`, { active: false });
    assert.equal(off.body.active, false);
    assert.equal((await server.get('/workspaces')).status, 401);
    assert.equal((await exchange(platform.url, cred)).body.error, 'invalid_client');
    await alice.patch(`/server-credentials/${cred.client_id}`, { active: true });
    assert.equal((await server.get('/workspaces')).status, 401, 'tokens from before deactivation stay dead');
    assert.equal((await (await asServer(platform.url, cred)).get('/workspaces')).status, 200);
  });

  it('applies scope changes to tokens already issued', async () => {
    const cred = await createServerCredential(alice, ['artifact:read', 'artifact:write']);
    const server = await asServer(platform.url, cred);
    assert.equal((await server.post('/workspaces', { name: 'w' })).status, 201);
    await alice.patch(`/server-credentials/${cred.client_id}`, { scopes: ['artifact:read'] });
    assert.equal((await server.post('/workspaces', { name: 'w' })).status, 403);
  });

  it('deletes permanently', async () => {
    const cred = await createServerCredential(alice, ['artifact:read']);
    const server = await asServer(platform.url, cred);
    assert.equal((await alice.delete(`/server-credentials/${cred.client_id}`)).status, 204);
    assert.equal((await alice.get(`/server-credentials/${cred.client_id}`)).status, 404);
    assert.equal((await exchange(platform.url, cred)).status, 401);
    assert.equal((await server.get('/workspaces')).status, 401);
  });
});

describe('credential management needs a person', () => {
  it('refuses a server credential and an API key, even with every scope', async () => {
    const all = ['artifact:read', 'artifact:write', 'artifact:manage', 'artifact:invoke', 'search:read', 'stream:read', 'stream:ingest'];
    const cred = await createServerCredential(alice, all);
    const server = await asServer(platform.url, cred);
    const key = alice.withToken((await createApiKey(alice, all)).key);
    for (const caller of [server, key]) {
      const before = await platform.services.db.collection('server_credentials').countDocuments();
      const create = await caller.post('/server-credentials', {
        client_id: 'sneaky',
        name: 'x',
        server_id: 's',
        host_id: 'h',
        scopes: ['artifact:read'],
      });
      assert.equal(create.status, 403);
      assert.equal(create.body.type, 'urn:platform:problem:human-required');
      assert.equal(
        (await caller.post(`/server-credentials/${cred.client_id}/rotate`)).status,
        403,
        'a server cannot rotate its own secret',
      );
      assert.equal((await caller.get('/server-credentials')).status, 403);
      assert.equal((await caller.post('/api-keys', { name: 'k', scopes: ['artifact:read'] })).status, 403);
      assert.equal(await platform.services.db.collection('server_credentials').countDocuments(), before);
    }
    assert.equal((await exchange(platform.url, cred)).status, 200, 'the secret was not rotated');
  });
});
