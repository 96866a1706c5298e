// Issue #30: the administer grant (A) manages shares, but an owner's grant is an owner's business. An
// A-holder could already not grant O; it may not demote or remove a co-owner either, on workspaces and
// collections alike, while an owner (the creator or a co-owner) may.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { Api, type Reply } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

type Person = Api & { userId: string };

let platform: TestPlatform;
let replica: ApiProcess; // a second API process on the same database
let alice: Person; // creates the containers
let bob: Person; // co-owner (O)
let carol: Person; // administrator (RAS)
let dave: Person; // an ordinary reader

before(async () => {
  platform = await startPlatform({}, { worker: false });
  [alice, bob, carol, dave] = await Promise.all([platform.newUser(), platform.newUser(), platform.newUser(), platform.newUser()]);
  replica = await apiProcess(platform, { PLATFORM_API_URI: platform.config.apiUri });
});
after(async () => {
  await replica?.stop();
  await platform?.close();
});

async function container(kind: 'workspaces' | 'collections'): Promise<string> {
  const created = await alice.post(`/${kind}`, { name: 'co-owned' });
  assert.equal(created.status, 201, created.text);
  const id = created.body.id as string;
  for (const [who, flags] of [
    [bob, 'O'],
    [carol, 'RAS'],
    [dave, 'R'],
  ] as const) {
    const shared = await alice.post(`/${kind}/${id}/shares`, { person_id: who.userId, flags });
    assert.equal(shared.status, 200, shared.text);
  }
  return id;
}

const flagsOf = async (kind: string, id: string, person: Person) =>
  ((await alice.get(`/${kind}/${id}/shares`)).body.items as { person_id: string; flags: string }[]).find(
    (s) => s.person_id === person.userId,
  )?.flags;

function assertForbidden(reply: Reply) {
  assert.equal(reply.status, 403, reply.text);
  assert.equal(reply.body.type, 'urn:platform:problem:forbidden');
  assert.match(reply.headers.get('content-type') ?? '', /application\/problem\+json/);
}

describe('an owner’s grant is changed only by an owner', () => {
  for (const kind of ['workspaces', 'collections'] as const) {
    it(`an administrator (A) can neither demote nor remove a co-owner of a ${kind.slice(0, -1)}`, async () => {
      const id = await container(kind);
      assertForbidden(await carol.post(`/${kind}/${id}/shares`, { person_id: bob.userId, flags: 'RS' }));
      assertForbidden(await carol.post(`/${kind}/${id}/shares`, { person_id: bob.userId, flags: 'RAS' }));
      assertForbidden(await carol.delete(`/${kind}/${id}/shares/${bob.userId}`));
      assert.equal(await flagsOf(kind, id, bob), 'RO', 'the co-owner keeps every grant');
      // The administrator still manages everyone else's grants.
      assert.equal((await carol.post(`/${kind}/${id}/shares`, { person_id: dave.userId, flags: 'RS' })).status, 200);
      assert.equal((await carol.delete(`/${kind}/${id}/shares/${dave.userId}`)).status, 204);
    });

    it(`an owner demotes or removes a co-owner of a ${kind.slice(0, -1)}, and a co-owner may step down`, async () => {
      const id = await container(kind);
      // A co-owner may change another co-owner's grant: both are owners.
      const eve = await platform.newUser();
      assert.equal((await bob.post(`/${kind}/${id}/shares`, { person_id: eve.userId, flags: 'O' })).status, 200);
      assert.equal((await bob.post(`/${kind}/${id}/shares`, { person_id: eve.userId, flags: 'R' })).status, 200);
      assert.equal(await flagsOf(kind, id, eve), 'R');
      // The creator demotes a co-owner; the co-owner (owner again) removes themselves.
      assert.equal((await alice.post(`/${kind}/${id}/shares`, { person_id: bob.userId, flags: 'RS' })).status, 200);
      assert.equal(await flagsOf(kind, id, bob), 'RS');
      assert.equal((await alice.post(`/${kind}/${id}/shares`, { person_id: bob.userId, flags: 'O' })).status, 200);
      assert.equal((await bob.delete(`/${kind}/${id}/shares/${bob.userId}`)).status, 204);
      assert.equal(await flagsOf(kind, id, bob), undefined);
      assert.equal((await bob.get(`/${kind}/${id}`)).status, 404);
      // The creator is never a share: no one can take their grant, so a container always has an owner.
      assert.equal((await carol.delete(`/${kind}/${id}/shares/${alice.userId}`)).status, 404);
      assert.equal((await carol.post(`/${kind}/${id}/shares`, { person_id: alice.userId, flags: 'R' })).status, 400);
      assert.equal((await alice.get(`/${kind}/${id}`)).body.owner_id, alice.userId);
    });
  }

  it('holds when an owner makes someone a co-owner while an administrator, in another process, demotes them', async () => {
    // Whichever change is claimed first, the administrator's demotion never lands on an owner's grant:
    // either it comes first (and the owner's grant follows), or it is refused. The end is always O.
    const carolThere = new Api(replica.url, carol.token);
    for (let round = 0; round < 6; round++) {
      const id = await container('workspaces');
      await alice.post(`/workspaces/${id}/shares`, { person_id: dave.userId, flags: 'RS' });
      const [promote, demote] = await Promise.all([
        alice.post(`/workspaces/${id}/shares`, { person_id: dave.userId, flags: 'O' }),
        carolThere.post(`/workspaces/${id}/shares`, { person_id: dave.userId, flags: 'R' }),
      ]);
      assert.equal(promote.status, 200, promote.text);
      assert.ok([200, 403].includes(demote.status), demote.text);
      assert.equal(await flagsOf('workspaces', id, dave), 'RO', `round ${round}: the administrator's ${demote.status} left it`);
    }
  });
});
