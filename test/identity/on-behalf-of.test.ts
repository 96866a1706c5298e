import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PlatformApiError, PlatformClient } from '../../src/platform-sdk/platform-client.js';
import type { Api } from '../helpers/http.js';
import { createApiKey, createServerCredential, type ServerCredential } from '../helpers/credentials.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let owner: Api & { userId: string }; // created the server credential
let bob: Api & { userId: string }; // consents to it
let carol: Api & { userId: string }; // never consents
let cred: ServerCredential;
let client: PlatformClient;
let bobsWs: string;
let carolsWs: string;

before(async () => {
  platform = await startPlatform({}, { worker: false });
  [owner, bob, carol] = await Promise.all([platform.newUser(), platform.newUser(), platform.newUser()]);
  cred = await createServerCredential(owner, ['artifact:read', 'artifact:write', 'artifact:manage']);
  client = new PlatformClient({ baseUrl: platform.url, ...{ clientId: cred.client_id, clientSecret: cred.client_secret } });
  bobsWs = (await bob.post('/workspaces', { name: "Bob's" })).body.id;
  carolsWs = (await carol.post('/workspaces', { name: "Carol's" })).body.id;
  const consent = await bob.post('/consents', { credential_kind: 'server_credential', credential_id: cred.client_id });
  assert.equal(consent.status, 201, consent.text);
});
after(() => platform.close());

async function refusal(fn: () => Promise<unknown>): Promise<PlatformApiError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof PlatformApiError) return err;
    throw err;
  }
  assert.fail('expected the platform to refuse');
}

describe('X-On-Behalf-Of', () => {
  it("acts within the consenting person's grants, records them as author and audits the credential", async () => {
    const asBob = client.forPerson(bob.userId);
    const workspaces = (await asBob.listWorkspaces()).items.map((w) => w.id);
    assert.deepEqual(workspaces, [bobsWs]);
    const created = await asBob.createArtifact({ title: 'for Bob', content_type: 'text/plain', content: 'x', collection_id: bobsWs });
    const provenance = created.provenance as { created_by: string; source: { via: { kind: string; id: string } } };
    assert.equal(provenance.created_by, bob.userId);
    assert.deepEqual(provenance.source.via, { kind: 'server_credential', id: cred.client_id });
    const audit = await platform.services.audit.forPerson(bob.userId, 10);
    assert.ok(audit.some((a) => a.credential_id === cred.client_id && a.method === 'POST' && a.path === '/artifacts' && a.status === 201));
  });

  it("fails on a resource the person does not own, even though the credential's scopes allow it (§7.4)", async () => {
    const before = await platform.services.db.collection('artifacts').countDocuments();
    const err = await refusal(() =>
      client.forPerson(bob.userId).createArtifact({ title: 'x', content_type: 'text/plain', content: 'x', collection_id: carolsWs }),
    );
    assert.equal(err.status, 404);
    assert.equal((await refusal(() => client.forPerson(bob.userId).getWorkspace(carolsWs))).status, 404);
    assert.equal(await platform.services.db.collection('artifacts').countDocuments(), before);
  });

  it('fails when the grant is read-only', async () => {
    assert.equal((await carol.post(`/workspaces/${carolsWs}/shares`, { person_id: bob.userId, flags: 'R' })).status, 200);
    const asBob = client.forPerson(bob.userId);
    assert.equal((await asBob.getWorkspace(carolsWs)).id, carolsWs);
    const err = await refusal(() =>
      asBob.createArtifact({ title: 'x', content_type: 'text/plain', content: 'x', collection_id: carolsWs }),
    );
    assert.equal(err.status, 403);
    assert.match(err.body, /C \(create\) grant/);
  });

  it('refuses a person who has not consented, and an unknown person', async () => {
    const err = await refusal(() => client.forPerson(carol.userId).listWorkspaces());
    assert.equal(err.status, 403);
    assert.match(err.body, /on-behalf-of-refused/);
    assert.equal((await refusal(() => client.forPerson('0190b5a0-0000-7000-8000-00000000dead').listWorkspaces())).status, 403);
    assert.equal((await refusal(() => client.forPerson('not-a-uuid').listWorkspaces())).status, 400);
  });

  it('stops when consent is revoked', async () => {
    const dave = await platform.newUser();
    await dave.post('/consents', { credential_kind: 'server_credential', credential_id: cred.client_id });
    assert.ok(await client.forPerson(dave.userId).listWorkspaces());
    assert.equal((await dave.delete(`/consents/server_credential/${cred.client_id}`)).status, 204);
    assert.equal((await refusal(() => client.forPerson(dave.userId).listWorkspaces())).status, 403);
  });

  it("is refused on a person's own token", async () => {
    const reply = await bob.request('GET', '/workspaces', { headers: { 'x-on-behalf-of': carol.userId } });
    assert.equal(reply.status, 403);
    assert.equal(reply.body.type, 'urn:platform:problem:on-behalf-of-refused');
  });

  it("works for API keys too, with the key scopes over the person's grants", async () => {
    const { id, key } = await createApiKey(owner, ['artifact:read']);
    await bob.post('/consents', { credential_kind: 'api_key', credential_id: id });
    const asBob = owner.withToken(key);
    const list = await asBob.request('GET', '/workspaces', { headers: { 'x-on-behalf-of': bob.userId } });
    const bobSees = (await bob.get('/workspaces')).body.items.map((w: { id: string }) => w.id);
    assert.ok(bobSees.includes(bobsWs));
    assert.deepEqual(
      list.body.items.map((w: { id: string }) => w.id),
      bobSees,
      'exactly what Bob sees',
    );
    const write = await asBob.request('POST', '/workspaces', { body: { name: 'x' }, headers: { 'x-on-behalf-of': bob.userId } });
    assert.equal(write.status, 403, 'key scopes still apply');
  });

  it('lets a credential act for its own creator without consent', async () => {
    const ownWs = (await owner.post('/workspaces', { name: 'own' })).body.id;
    const list = await client.forPerson(owner.userId).listWorkspaces();
    assert.deepEqual(
      list.items.map((w) => w.id),
      [ownWs],
    );
  });

  it("does not hand consents to a new credential that reuses a deleted one's client_id", async () => {
    const erin = await platform.newUser();
    const temp = await createServerCredential(owner, ['artifact:read']);
    await erin.post('/consents', { credential_kind: 'server_credential', credential_id: temp.client_id });
    assert.equal((await owner.delete(`/server-credentials/${temp.client_id}`)).status, 204);
    // Only the owner can make that client_id again (it is in their namespace); someone else choosing
    // the same name gets an id of their own.
    const chosen = temp.client_id.slice(0, temp.client_id.lastIndexOf('.'));
    const mallory = await platform.newUser();
    const elsewhere = await mallory.post('/server-credentials', {
      client_id: chosen,
      name: 'same name',
      server_id: 's',
      host_id: 'h',
      scopes: ['artifact:read'],
    });
    assert.equal(elsewhere.status, 201);
    assert.notEqual(elsewhere.body.client_id, temp.client_id);
    const again = await owner.post('/server-credentials', {
      client_id: chosen,
      name: 'same id',
      server_id: 's',
      host_id: 'h',
      scopes: ['artifact:read'],
    });
    assert.equal(again.status, 201);
    assert.equal(again.body.client_id, temp.client_id);
    const successor = new PlatformClient({ baseUrl: platform.url, clientId: temp.client_id, clientSecret: again.body.client_secret });
    assert.equal((await refusal(() => successor.forPerson(erin.userId).listWorkspaces())).status, 403);
  });

  it('audits refused requests with their real status', async () => {
    const before = (await platform.services.audit.forPerson(bob.userId, 100)).length;
    await refusal(() =>
      client.forPerson(bob.userId).createArtifact({ title: 'x', content_type: 'text/plain', content: 'x', collection_id: carolsWs }),
    );
    const entries = await platform.services.audit.forPerson(bob.userId, 100);
    assert.equal(entries.length, before + 1);
    assert.ok([403, 404].includes(entries[0]!.status), `status ${entries[0]!.status}`);
    const ownWs = (await bob.post('/workspaces', { name: 'audit' })).body.id;
    await refusal(() =>
      client.forPerson(bob.userId).createArtifact({ title: 'x', content_type: 'bogus', content: 'x', collection_id: ownWs }),
    );
    assert.equal((await platform.services.audit.forPerson(bob.userId, 1))[0]!.status, 400);
  });

  it('refuses consent to a credential that does not exist', async () => {
    assert.equal((await bob.post('/consents', { credential_kind: 'server_credential', credential_id: 'ghost' })).status, 400);
    assert.equal((await bob.post('/consents', { credential_kind: 'robot', credential_id: 'x' })).status, 400);
  });
});
