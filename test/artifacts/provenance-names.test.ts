// Names for the ids provenance carries (issue #37): writes through an API key, a server credential and
// an agent run record the credential (`source.via`) and the agent; GET /names tells a person's e-mail,
// a credential's name and an artifact's title (a deleted draft's last title) only to those who may
// know them: the person, their credential's owner, an administrator, people who share a container.
// Anyone else gets null, the same as for an id that does not exist.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentId } from '../../src/invocations/agents/registry.js';
import type { Api } from '../helpers/http.js';
import { asServer, createApiKey, createServerCredential } from '../helpers/credentials.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };
let aliceEmail: string;
let ws: string;

const names = async (who: Api, query: Record<string, string[]>) => {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, v.join(',')]));
  const reply = await who.get(`/names?${params}`);
  assert.equal(reply.status, 200, reply.text);
  return reply.body as {
    people: { id: string; email: string | null; you: boolean }[];
    api_keys: { id: string; name: string | null }[];
    server_credentials: { id: string; name: string | null }[];
    oauth_clients: { id: string; name: string | null }[];
    artifacts: { id: string; title: string | null; content_type?: string; deleted?: true }[];
  };
};

before(async () => {
  platform = await startPlatform();
  alice = await platform.newUser();
  bob = await platform.newUser();
  aliceEmail = (await alice.get('/me')).body.email;
  assert.match(aliceEmail, /@example\.test$/);
  ws = (await alice.post('/workspaces', { name: 'names' })).body.id;
});
after(() => platform.close());

describe('provenance names', () => {
  it('records the API key, server credential and agent a write came through', async () => {
    const key = await createApiKey(alice, ['artifact:read', 'artifact:write', 'artifact:invoke']);
    const viaKey = alice.withToken(key.key);
    const written = await viaKey.post('/artifacts', {
      title: 'Key note',
      content_type: 'text/markdown',
      content: 'telescope',
      collection_id: ws,
    });
    assert.equal(written.status, 201, written.text);
    assert.deepEqual(written.body.provenance.source.via, { kind: 'api_key', id: key.id });
    assert.equal(written.body.provenance.created_by, alice.userId);

    const cred = await createServerCredential(alice, ['artifact:read', 'artifact:write']);
    const server = await asServer(platform.url, cred);
    const byServer = await server.post('/artifacts', {
      title: 'Server note',
      content_type: 'text/markdown',
      content: 'x',
      collection_id: ws,
    });
    assert.equal(byServer.status, 201, byServer.text);
    assert.deepEqual(byServer.body.provenance.source.via, { kind: 'server_credential', id: cred.client_id });

    // An agent run started through the API key: its writes name the agent, the run and the key.
    const run = await viaKey.post(`/artifacts/${agentId('tag-keywords')}/invoke`, {
      workspace_id: ws,
      mode: 'apply',
      params: { rules: { optics: ['telescope'] } },
    });
    assert.equal(run.status, 200, run.text);
    assert.equal(run.body.status, 'completed', run.text);
    const tagged = (await alice.get(`/artifacts/${written.body.id}`)).body;
    assert.equal(tagged.provenance.source.kind, 'agent');
    assert.equal(tagged.provenance.source.agent, 'tag-keywords');
    assert.equal(tagged.provenance.source.invocation_id, run.body.invocation_id);
    assert.deepEqual(tagged.provenance.source.via, { kind: 'api_key', id: key.id });
    // The draft's revisions carry the same provenance.
    const revisions = (await alice.get(`/artifacts/${written.body.id}/revisions`)).body.items;
    assert.equal(revisions.at(-1).provenance.source.agent, 'tag-keywords');

    const mine = await names(alice, { people: [alice.userId], api_keys: [key.id], server_credentials: [cred.client_id] });
    assert.deepEqual(mine.people, [{ id: alice.userId, email: aliceEmail, you: true }]);
    assert.deepEqual(mine.api_keys, [{ id: key.id, name: 'test key' }]);
    assert.deepEqual(mine.server_credentials, [{ id: cred.client_id, name: 'test server' }]);

    // Bob shares nothing with Alice: nothing of hers is named to him.
    const stranger = await names(bob, {
      people: [alice.userId, bob.userId],
      api_keys: [key.id],
      server_credentials: [cred.client_id],
      artifacts: [written.body.id],
    });
    assert.deepEqual(stranger.people, [
      { id: alice.userId, email: null, you: false },
      { id: bob.userId, email: (await bob.get('/me')).body.email, you: true },
    ]);
    assert.deepEqual(stranger.api_keys, [{ id: key.id, name: null }]);
    assert.deepEqual(stranger.server_credentials, [{ id: cred.client_id, name: null }]);
    assert.deepEqual(stranger.artifacts, [{ id: written.body.id, title: null }]);

    // Once Alice shares the workspace with him, he may know who she is and what her credentials are called.
    assert.equal((await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'R' })).status, 200);
    const shared = await names(bob, { people: [alice.userId], api_keys: [key.id], artifacts: [written.body.id] });
    assert.equal(shared.people[0]!.email, aliceEmail);
    assert.equal(shared.api_keys[0]!.name, 'test key');
    assert.deepEqual(shared.artifacts, [{ id: written.body.id, title: 'Key note', content_type: 'text/markdown' }]);
    assert.equal((await alice.delete(`/workspaces/${ws}/shares/${bob.userId}`)).status, 204);
    assert.equal((await names(bob, { people: [alice.userId] })).people[0]!.email, null);

    // An administrator may know everyone.
    const admin = await platform.admin();
    assert.equal((await names(admin, { people: [alice.userId] })).people[0]!.email, aliceEmail);
  });

  it('names a deleted draft by its last title to those who see its workspace, and nobody else', async () => {
    const gone = (await alice.post('/artifacts', { title: 'Old plan', content_type: 'text/markdown', content: 'x', collection_id: ws }))
      .body.id;
    assert.equal((await alice.delete(`/artifacts/${gone}`)).status, 204);
    const missing = '0196a3f0-0000-7000-8000-000000000000';
    const answer = await names(alice, { artifacts: [gone, missing] });
    assert.deepEqual(answer.artifacts, [
      { id: gone, title: 'Old plan', content_type: 'text/markdown', deleted: true },
      { id: missing, title: null },
    ]);
    assert.deepEqual((await names(bob, { artifacts: [gone] })).artifacts, [{ id: gone, title: null }]);
  });

  it('refuses bad queries with a problem, and needs artifact:read', async () => {
    const tooMany = Array.from({ length: 101 }, (_, i) => `id-${i}`).join(',');
    const reply = await alice.get(`/names?people=${tooMany}`);
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.headers.get('content-type') ?? '', /problem\+json/);
    const unknown = await alice.get('/names?persons=x');
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal((await platform.api.get('/names?people=x')).status, 401);
    const ingest = alice.withToken((await createApiKey(alice, ['stream:ingest'])).key);
    const refused = await ingest.get(`/names?people=${alice.userId}`);
    assert.equal(refused.status, 403, refused.text);
    // An empty query names nothing.
    assert.deepEqual(await names(alice, {}), { people: [], api_keys: [], server_credentials: [], oauth_clients: [], artifacts: [] });
  });
});
