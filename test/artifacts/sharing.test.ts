import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { commitInto } from '../helpers/commit.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };

before(async () => {
  platform = await startPlatform({}, { worker: false });
  [alice, bob] = await Promise.all([platform.newUser(), platform.newUser()]);
});
after(() => platform.close());

async function setup(kind: 'workspaces' | 'collections') {
  const id = (await alice.post(`/${kind}`, { name: 'shared' })).body.id;
  if (kind === 'workspaces')
    return {
      id,
      artifact: (await alice.post('/artifacts', { title: 'a', content_type: 'text/plain', content: 'a', collection_id: id })).body.id,
    };
  await platform.startWorker(); // a collection's artifact comes only from a commit
  const [artifact] = await commitInto(alice, id, [{ title: 'a' }]);
  return { id, artifact };
}

const share = (kind: string, id: string, flags: string, by: Api = alice) =>
  by.post(`/${kind}/${id}/shares`, { person_id: bob.userId, flags });

describe('sharing with CRUDEASIO grants', () => {
  for (const kind of ['workspaces', 'collections'] as const) {
    it(`R lets another person see a ${kind.slice(0, -1)} and its artifacts, nothing more`, async () => {
      const { id, artifact } = await setup(kind);
      assert.equal((await bob.get(`/${kind}/${id}`)).status, 404, 'invisible before sharing');
      const shared = await share(kind, id, 'R');
      assert.equal(shared.status, 200, shared.text);
      assert.deepEqual(shared.body.items, [{ person_id: bob.userId, flags: 'R' }]);
      assert.equal((await bob.get(`/${kind}/${id}`)).status, 200);
      assert.ok((await bob.get(`/${kind}`)).body.items.some((c: { id: string }) => c.id === id));
      assert.equal((await bob.get(`/artifacts/${artifact}`)).status, 200);
      assert.equal((await bob.patch(`/${kind}/${id}`, { name: 'mine now' })).status, 403);
      // A workspace needs the C grant; a collection takes no direct write from anyone (commits only).
      assert.equal(
        (await bob.post('/artifacts', { title: 'b', content_type: 'text/plain', content: 'b', collection_id: id })).status,
        kind === 'workspaces' ? 403 : 409,
      );
      assert.equal((await share(kind, id, 'RA', bob)).status, 403, 'no A grant: cannot reshare');
      assert.equal((await alice.get(`/${kind}/${id}`)).body.name, 'shared');
    });
  }

  it('C, U and D let a person create, edit and delete drafts in a workspace', async () => {
    const { id, artifact } = await setup('workspaces');
    await share('workspaces', id, 'CU');
    const created = await bob.post('/artifacts', { title: 'by bob', content_type: 'text/plain', content: 'b', collection_id: id });
    assert.equal(created.status, 201);
    assert.equal(created.body.provenance.created_by, bob.userId);
    assert.equal((await bob.patch(`/artifacts/${artifact}`, { title: 'edited by bob' })).status, 200);
    assert.equal((await bob.patch(`/workspaces/${id}`, { description: 'bob was here' })).status, 200);
    assert.equal((await bob.delete(`/artifacts/${artifact}`)).status, 403, 'no D grant');
    await share('workspaces', id, 'D');
    assert.equal((await bob.patch(`/artifacts/${artifact}`, { title: 'again' })).status, 403, 'a new share replaces the old flags');
    assert.equal((await bob.delete(`/artifacts/${artifact}`)).status, 204);
  });

  it('A lets a person manage grants; O is every flag', async () => {
    const { id } = await setup('collections');
    const carol = await platform.newUser();
    await share('collections', id, 'AS');
    const byBob = await bob.post(`/collections/${id}/shares`, { person_id: carol.userId, flags: 'SR' });
    assert.equal(byBob.status, 200, byBob.text);
    assert.ok(
      byBob.body.items.some((s: { person_id: string; flags: string }) => s.person_id === carol.userId && s.flags === 'RS'),
      'flags stored in CRUDEASIO order',
    );
    await share('collections', id, 'O');
    assert.equal((await bob.patch(`/collections/${id}`, { name: 'co-owned' })).status, 200);
  });

  it('lets an administrator grant only flags they hold, never O', async () => {
    const { id } = await setup('workspaces');
    const carol = await platform.newUser();
    await share('workspaces', id, 'RAS');
    const escalate = await bob.post(`/workspaces/${id}/shares`, { person_id: bob.userId, flags: 'O' });
    assert.equal(escalate.status, 403);
    assert.equal((await bob.post(`/workspaces/${id}/shares`, { person_id: carol.userId, flags: 'RD' })).status, 403);
    assert.equal((await bob.post(`/workspaces/${id}/shares`, { person_id: carol.userId, flags: 'RS' })).status, 200);
    const grants = (await alice.get(`/workspaces/${id}/shares`)).body.items;
    assert.deepEqual(grants.find((g: { person_id: string }) => g.person_id === bob.userId).flags, 'RAS', 'unchanged');
  });

  it('never lets a concurrent grant undo a revocation', async () => {
    const others = await Promise.all([platform.newUser(), platform.newUser(), platform.newUser()]);
    for (let round = 0; round < 5; round++) {
      const { id } = await setup('workspaces');
      await share('workspaces', id, 'R');
      const replies = await Promise.all([
        alice.delete(`/workspaces/${id}/shares/${bob.userId}`),
        ...others.map((o) => alice.post(`/workspaces/${id}/shares`, { person_id: o.userId, flags: 'R' })),
      ]);
      assert.deepEqual(
        replies.map((r) => r.status),
        [204, 200, 200, 200],
        replies.map((r) => r.text).join('\n'),
      );
      const people = (await alice.get(`/workspaces/${id}/shares`)).body.items.map((s: { person_id: string }) => s.person_id).sort();
      assert.deepEqual(people, others.map((o) => o.userId).sort());
      assert.equal((await bob.get(`/workspaces/${id}`)).status, 404);
    }
  });

  it('unsharing hides the container again', async () => {
    const { id } = await setup('workspaces');
    await share('workspaces', id, 'R');
    assert.equal((await alice.delete(`/workspaces/${id}/shares/${bob.userId}`)).status, 204);
    assert.equal((await bob.get(`/workspaces/${id}`)).status, 404);
    assert.equal((await alice.delete(`/workspaces/${id}/shares/${bob.userId}`)).status, 404);
  });

  it('refuses bad grants, writing nothing', async () => {
    const { id } = await setup('workspaces');
    const cases: [unknown, string][] = [
      [{ person_id: bob.userId, flags: 'RX' }, 'flags'],
      [{ person_id: 'bob', flags: 'R' }, 'person_id'],
      [{ person_id: '0190b5a0-0000-7000-8000-00000000beef', flags: 'R' }, 'person_id'],
      [{ person_id: alice.userId, flags: 'R' }, 'person_id'],
    ];
    for (const [body, field] of cases) {
      const reply = await alice.post(`/workspaces/${id}/shares`, body);
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.equal(reply.body.invalid_params[0].name, field);
    }
    assert.deepEqual((await alice.get(`/workspaces/${id}/shares`)).body.items, []);
  });
});
