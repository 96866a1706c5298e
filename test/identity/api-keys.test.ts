import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type { Api } from '../helpers/http.js';
import { createApiKey } from '../helpers/credentials.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let ws: string;
let markdown: string;
let json: string;

before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'keys' })).body.id;
  markdown = (await alice.post('/artifacts', { title: 'md', content_type: 'text/markdown', content: '# md', collection_id: ws })).body.id;
  json = (await alice.post('/artifacts', { title: 'js', content_type: 'application/json', content: '{}', collection_id: ws })).body.id;
});
after(() => platform.close());

describe('API keys', () => {
  it('shows the key once, stores only its hash, and lists without it', async () => {
    const reply = await alice.post('/api-keys', { name: 'ci', scopes: ['artifact:read'] });
    assert.equal(reply.status, 201, reply.text);
    assert.match(reply.body.key, /^pk_[0-9a-f]{32}_[0-9A-Za-z]{43}$/);
    const secret = reply.body.key.split('_')[2];
    const docs = await platform.services.db.collection('api_keys').find().toArray();
    assert.ok(!JSON.stringify(docs).includes(secret));
    const list = await alice.get('/api-keys');
    assert.ok(list.body.items.some((k: { id: string }) => k.id === reply.body.id));
    assert.ok(!list.text.includes(secret));
  });

  it('works directly as a bearer token, within its scopes', async () => {
    const key = alice.withToken((await createApiKey(alice, ['artifact:read'])).key);
    assert.equal((await key.get(`/artifacts/${markdown}`)).status, 200);
    const refused = await key.post('/workspaces', { name: 'x' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.required_scope, 'artifact:write');
  });

  it('exchanges for a short-lived JWT carrying the same scopes', async () => {
    const { key } = await createApiKey(alice, ['artifact:read', 'search:read']);
    const reply = await platform.api.post('/api-keys/exchange', { api_key: key });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.expires_in, 900);
    assert.equal(reply.body.scope, 'artifact:read search:read');
    const claims = decodeJwt(reply.body.access_token);
    assert.equal(claims.sub, alice.userId);
    const token = alice.withToken(reply.body.access_token);
    assert.equal((await token.get(`/artifacts/${markdown}`)).status, 200);
    assert.equal((await token.post('/workspaces', { name: 'x' })).status, 403);
    assert.equal((await platform.api.post('/api-keys/exchange', { api_key: 'pk_nope' })).status, 401);
    assert.equal((await platform.api.post('/api-keys/exchange', {})).status, 400);
  });

  it('stops working at once when revoked, with every token it was exchanged for', async () => {
    const { id, key } = await createApiKey(alice, ['artifact:read']);
    const exchanged = alice.withToken((await platform.api.post('/api-keys/exchange', { api_key: key })).body.access_token);
    assert.equal((await alice.delete(`/api-keys/${id}`)).status, 204);
    assert.equal((await alice.withToken(key).get('/workspaces')).status, 401);
    assert.equal((await exchanged.get('/workspaces')).status, 401);
    assert.equal((await alice.delete(`/api-keys/${id}`)).status, 404);
  });

  it('refuses a tampered key', async () => {
    const { key } = await createApiKey(alice, ['artifact:read']);
    const tampered = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    assert.equal((await alice.withToken(tampered).get('/workspaces')).status, 401);
  });

  it('rejects unknown scope strings', async () => {
    const reply = await alice.post('/api-keys', { name: 'bad', scopes: ['artifact:read', 'everything'] });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.invalid_params[0].name, 'scopes.1');
  });
});

describe('fine-grained scopes: resource|tool|prompt : mime : action', () => {
  it('limits reads to matching content types, in gets and lists', async () => {
    const key = alice.withToken((await createApiKey(alice, ['resource:text/*:read'])).key);
    assert.equal((await key.get(`/artifacts/${markdown}`)).status, 200);
    assert.equal((await key.get(`/artifacts/${json}`)).status, 404);
    const list = await key.get(`/artifacts?collection_id=${ws}`);
    assert.deepEqual(
      list.body.items.map((a: { id: string }) => a.id),
      [markdown],
    );
  });

  it('limits writes to matching content types', async () => {
    const key = alice.withToken((await createApiKey(alice, ['resource:text/markdown:write', 'resource:*:read'])).key);
    const ok = await key.post('/artifacts', { title: 'n', content_type: 'text/markdown', content: 'x', collection_id: ws });
    assert.equal(ok.status, 201, ok.text);
    const before = await platform.services.db.collection('artifacts').countDocuments();
    const refused = await key.post('/artifacts', { title: 'n', content_type: 'application/json', content: '{}', collection_id: ws });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.type, 'urn:platform:problem:insufficient-scope');
    assert.equal((await key.patch(`/artifacts/${json}`, { title: 'changed' })).status, 403);
    assert.equal(await platform.services.db.collection('artifacts').countDocuments(), before);
  });

  it('does not let tool or prompt scopes read artifacts', async () => {
    const key = alice.withToken((await createApiKey(alice, ['tool:text/markdown:read'])).key);
    assert.equal((await key.get(`/artifacts/${markdown}`)).status, 404);
  });
});

describe('resource filters', () => {
  it('hide filtered-out workspaces and their artifacts from lists and gets', async () => {
    const other = (await alice.post('/workspaces', { name: 'hidden' })).body.id;
    const hidden = (await alice.post('/artifacts', { title: 'h', content_type: 'text/plain', content: 'h', collection_id: other })).body.id;
    const key = alice.withToken(
      (await createApiKey(alice, ['artifact:read', 'artifact:write'], { workspaces: [ws], collections: [] })).key,
    );
    const workspaces = (await key.get('/workspaces')).body.items.map((w: { id: string }) => w.id);
    assert.deepEqual(workspaces, [ws]);
    assert.equal((await key.get(`/workspaces/${other}`)).status, 404);
    assert.equal((await key.get(`/artifacts/${hidden}`)).status, 404);
    assert.ok(!(await key.get('/artifacts?limit=200')).body.items.some((a: { id: string }) => a.id === hidden));
    assert.equal(
      (await key.post('/artifacts', { title: 'x', content_type: 'text/plain', content: 'x', collection_id: other })).status,
      404,
    );
    assert.equal((await key.get('/collections')).body.items.length, 0);
    const noTarget = await key.post('/artifacts', { title: 'x', content_type: 'text/plain', content: 'x' });
    assert.equal(noTarget.status, 400, 'no default workspace outside the filter');
    assert.equal(noTarget.body.invalid_params[0].name, 'collection_id');
  });
});
