// Issue #30: the administer grant (A) manages shares, but an owner's grant is an owner's business. An
// A-holder could already not grant O; it may not demote or remove a co-owner either, on workspaces and
// collections alike, while an owner (the creator or a co-owner) may. The rule is checked on the shares
// each claimed change is made on, not only on what the request read first: a promotion claimed by
// another process between the two is forced here by writing its claim from a second connection.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from 'mongodb';
import type { StoreClient } from '../../src/store/mongo.js';
import type { ContainerDoc } from '../../src/store/containers.js';
import { createStoreClient, openDatabase } from '../../src/store/mongo.js';
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
let client: StoreClient;
/** Another process's connection: where a racing change's claim comes from. */
let other: Db;

before(async () => {
  platform = await startPlatform({}, { worker: false });
  [alice, bob, carol, dave] = await Promise.all([platform.newUser(), platform.newUser(), platform.newUser(), platform.newUser()]);
  replica = await apiProcess(platform, { PLATFORM_API_URI: platform.config.apiUri });
  client = createStoreClient(platform.config.storeUri);
  other = openDatabase(client, platform.config.MONGODB_DB);
});
after(async () => {
  await client?.close();
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

  /**
   * What another process leaves between claiming a change of the shares and writing it to the container
   * document (or for good, when it dies there): the claim of the next version, a promotion of `person`
   * to co-owner, with the document still at the version before. Returns the shares the document shows.
   */
  async function promotionClaimedElsewhere(kind: 'workspace' | 'collection', id: string, person: Person) {
    const doc = (await other.collection<ContainerDoc>(`${kind}s`).findOne({ _id: id }))!;
    const version = (doc.shares_version ?? 0) + 1;
    const shares = [...doc.shares.filter((s) => s.person_id !== person.userId), { person_id: person.userId, flags: 'RO' }];
    await other
      .collection<{ _id: string; [field: string]: unknown }>('container_share_versions')
      .insertOne({ _id: `${kind}:${id}:${version}`, container_id: id, kind, version, shares, claimed_at: new Date() });
    return doc.shares;
  }

  for (const kind of ['workspace', 'collection'] as const) {
    it(`an administrator's demotion or removal read before a promotion claimed elsewhere is refused (${kind})`, async () => {
      for (const change of ['demote', 'remove'] as const) {
        const id = await container(`${kind}s`);
        assert.equal((await alice.post(`/${kind}s/${id}/shares`, { person_id: dave.userId, flags: 'RS' })).status, 200);
        const shown = await promotionClaimedElsewhere(kind, id, dave);
        // The request reads the document, where dave is not an owner yet; the change is made on the claimed shares, where he is.
        assert.equal(shown.find((s) => s.person_id === dave.userId)?.flags, 'RS', 'the interleaving was not reproduced');
        const reply =
          change === 'demote'
            ? await carol.post(`/${kind}s/${id}/shares`, { person_id: dave.userId, flags: 'R' })
            : await carol.delete(`/${kind}s/${id}/shares/${dave.userId}`);
        assertForbidden(reply);
        assert.equal(await flagsOf(`${kind}s`, id, dave), 'RO', `${change}: the promotion stands`);
      }
    });
  }

  it('holds when an owner makes someone a co-owner while an administrator, in another process, demotes them', async () => {
    // Whichever change is claimed first, the administrator's demotion never lands on an owner's grant:
    // either it comes first (and the owner's grant follows), or it is refused. The end is always O.
    // Which order each round takes is up to the machine; the test above forces the one that matters.
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
