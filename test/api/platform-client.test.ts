import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PlatformApiError, PlatformClient } from '../../src/platform-sdk/platform-client.js';
import type { Api } from '../helpers/http.js';
import { createServerCredential, type ServerCredential } from '../helpers/credentials.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let cred: ServerCredential;
let ws: string;

before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
  cred = await createServerCredential(alice, ['artifact:read', 'artifact:write']);
  ws = (await alice.post('/workspaces', { name: 'client' })).body.id;
});
after(() => platform.close());

/** A client whose token exchanges are counted, on a clock the test moves. */
function counted() {
  const clock = { now: Date.now() };
  const calls = { token: 0, api: 0 };
  const client = new PlatformClient({
    baseUrl: platform.url,
    clientId: cred.client_id,
    clientSecret: cred.client_secret,
    now: () => clock.now,
    fetch: async (input, init) => {
      if (String(input).endsWith('/auth/token')) calls.token++;
      else calls.api++;
      return fetch(input, init);
    },
  });
  return { client, clock, calls };
}

describe('reference platform client', () => {
  it('caches its token and refreshes it 60 s before expiry', async () => {
    const { client, clock, calls } = counted();
    await client.api.listWorkspaces();
    await client.api.listWorkspaces();
    assert.equal(calls.token, 1, 'one exchange for both calls');
    clock.now += (3600 - 61) * 1000;
    await client.api.listWorkspaces();
    assert.equal(calls.token, 1, 'still 61 s left: reused');
    clock.now += 2000;
    await client.api.listWorkspaces();
    assert.equal(calls.token, 2, 'inside the 60 s margin: refreshed');
  });

  it('exchanges once for concurrent first calls', async () => {
    const { client, calls } = counted();
    await Promise.all([client.api.listWorkspaces(), client.api.listWorkspaces(), client.api.listWorkspaces()]);
    assert.equal(calls.token, 1);
  });

  it('retries once with a fresh token after a 401', async () => {
    const { client, calls } = counted();
    await client.api.listWorkspaces();
    // Deactivate and reactivate: the cached token dies, the secret still works.
    await alice.patch(`/server-credentials/${cred.client_id}`, { active: false });
    await alice.patch(`/server-credentials/${cred.client_id}`, { active: true });
    const list = await client.api.listWorkspaces();
    assert.ok(list.items.some((w) => w.id === ws));
    assert.equal(calls.token, 2);
  });

  it('reports API failures as errors with status and a truncated body, usable as a tool result', async () => {
    const { client } = counted();
    await assert.rejects(
      () => client.api.getArtifact('0190b5a0-0000-7000-8000-000000000000'),
      (err: unknown) => {
        assert.ok(err instanceof PlatformApiError);
        assert.equal(err.status, 404);
        assert.match(err.body, /not-found/);
        const result = err.toToolResult();
        assert.equal(result.isError, true);
        assert.match(result.content[0]!.text, /HTTP 404/);
        return true;
      },
    );
    // Hundreds of unknown fields make a long problem body (every field is named): it is cut at 2,000.
    const noise = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`unknown_field_${i}`, i]));
    await assert.rejects(
      () =>
        client.request('POST', '/artifacts', {
          body: { title: 't', content_type: 'text/plain', content: 'c', collection_id: ws, ...noise },
        }),
      (err: unknown) => err instanceof PlatformApiError && err.status === 400 && err.body.length === 2000,
    );
  });

  it('fails clearly when its own secret is wrong', async () => {
    const client = new PlatformClient({ baseUrl: platform.url, clientId: cred.client_id, clientSecret: 'scs_wrong' });
    await assert.rejects(
      () => client.api.listWorkspaces(),
      (err: unknown) => err instanceof PlatformApiError && err.status === 401 && /invalid_client/.test(err.body),
    );
  });

  it('reads and writes through the typed helpers', async () => {
    const { client } = counted();
    const created = await client.api.createArtifact({
      title: 'from a server',
      content_type: 'text/markdown',
      content: '# hi',
      collection_id: ws,
    });
    const updated = await client.api.updateArtifact(created.id as string, { title: 'renamed' });
    assert.equal(updated.title, 'renamed');
    assert.equal((await client.api.getArtifact(created.id as string)).title, 'renamed');
    assert.ok((await client.api.listArtifacts({ collection_id: ws })).items.some((a) => a.id === created.id));
  });
});
