// Revocation across API processes (issue #17): a deactivation racing a rotation and the uses of a
// server credential, from two API processes on one database. The engine does not isolate updates of
// one document, so a rotation (or the record of a use) written on top of a deactivation could
// switch the credential back on; the change claims and the separate usage record must not let it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { createServerCredential, exchange } from '../helpers/credentials.js';
import { Api } from '../helpers/http.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let replica: ApiProcess;
let a: Api;
let b: Api;

before(async () => {
  platform = await startPlatform({ AUTH_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' }, { worker: false });
  replica = await apiProcess(platform, { AUTH_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' });
  a = await platform.admin();
  b = await new Api(replica.url).login(adminEmail, adminPassword);
});
after(async () => {
  await replica?.stop();
  await platform?.close();
});

describe('deactivation racing rotation and use, across API processes', () => {
  it('a deactivated credential stays deactivated, whatever raced it', async () => {
    for (let round = 0; round < 6; round++) {
      const creds = await Promise.all(Array.from({ length: 4 }, () => createServerCredential(a, ['artifact:read'])));
      const results = await Promise.all(
        creds.map(async (cred) => {
          const [deactivated, rotated] = await Promise.all([
            b.patch(`/server-credentials/${cred.client_id}`, { active: false }),
            a.post(`/server-credentials/${cred.client_id}/rotate`, {}),
            exchange(platform.url, cred),
            exchange(replica.url, cred),
          ]);
          return { cred, deactivated, rotated };
        }),
      );
      for (const { cred, deactivated, rotated } of results) {
        assert.equal(deactivated.status, 200, deactivated.text);
        assert.equal(rotated.status, 200, rotated.text);
        const now = await a.get(`/server-credentials/${cred.client_id}`);
        assert.equal(now.body.active, false, `round ${round}: ${cred.client_id} is active again after its deactivation was answered`);
        assert.equal((await exchange(platform.url, { client_id: cred.client_id, client_secret: rotated.body.client_secret })).status, 401);
        assert.equal((await exchange(replica.url, cred)).status, 401);
      }
    }
  });

  it('every change claims its own generation: none is lost, and a deactivation is never undone', async () => {
    const store = platform.services.serverCredentials;
    for (let round = 0; round < 5; round++) {
      const cred = await createServerCredential(a, ['artifact:read']);
      const before = (await store.get(cred.client_id))!;
      // Straight at the store, many at once: the engine sees concurrent writes of one document.
      await Promise.all([
        ...Array.from({ length: 8 }, (_, i) => store.update(cred.client_id, { secret_hash: `rotated-${i}` }, true)),
        store.update(cred.client_id, { active: false }, true),
        ...Array.from({ length: 8 }, () => store.touch(cred.client_id)),
      ]);
      const after = (await store.get(cred.client_id))!;
      assert.equal(after.active, false, `round ${round}: the deactivation was undone`);
      assert.equal(
        after.generation,
        before.generation + 9,
        `round ${round}: generation ${after.generation}, but 9 changes each moved it from ${before.generation}`,
      );
    }
  });

  it('a revoked grant stays revoked, whatever raced it (other grants, a rename, artifacts appended)', async () => {
    const containers = platform.services.containers;
    for (let round = 0; round < 5; round++) {
      const ws = (await a.post('/workspaces', { name: `shares ${round}` })).body.id as string;
      await containers.share('workspace', ws, { person_id: 'revoked-person', flags: 'RCUD' });
      const others = Array.from({ length: 6 }, (_, i) => `person-${round}-${i}`);
      // Straight at the store, many at once: the engine sees concurrent writes of one document.
      await Promise.all([
        containers.unshare('workspace', ws, 'revoked-person'),
        ...others.map((person_id) => containers.share('workspace', ws, { person_id, flags: 'R' })),
        containers.update('workspace', ws, { name: `renamed ${round}` }),
        ...Array.from({ length: 4 }, (_, i) =>
          a.post('/artifacts', { title: `t${i}`, content_type: 'text/plain', content: 'x', collection_id: ws }),
        ),
      ]);
      const doc = (await platform.services.db.collection('workspaces').findOne({ _id: ws as never }))!;
      const people = (doc.shares as { person_id: string }[]).map((s) => s.person_id).sort();
      assert.deepEqual(people, [...others].sort(), `round ${round}: shares are ${people}`);
      assert.deepEqual([...doc.readers].sort(), [...others].sort());
    }
  });
});
