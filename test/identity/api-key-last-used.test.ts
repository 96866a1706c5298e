// "Last used" follows a key used directly as a bearer (issue #37), not only its exchange, across API
// processes: one replica serves the key, the other lists it. A busy key records a use at most once a
// minute (a conditional write), so its value holds still within the minute and moves after it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { directUseIntervalMs } from '../../src/identity/credentials.js';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { createApiKey, createServerCredential, exchange } from '../helpers/credentials.js';
import { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const unlimited = { AUTH_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' };

let platform: TestPlatform;
let replica: ApiProcess;
let alice: Api & { userId: string };

before(async () => {
  platform = await startPlatform(unlimited, { worker: false });
  replica = await apiProcess(platform, unlimited);
  alice = await platform.newUser();
});
after(async () => {
  await replica?.stop();
  await platform?.close();
});

/** The key's last_used_at as the list endpoint of the platform (not the replica that served it) answers. */
async function lastUsed(id: string): Promise<string | null> {
  const list = await alice.get('/api-keys');
  assert.equal(list.status, 200, list.text);
  const key = (list.body.items as { id: string; last_used_at: string | null }[]).find((k) => k.id === id);
  assert.ok(key, `key ${id} is listed`);
  return key.last_used_at;
}

/** Waits for last_used_at to differ from `before` (the record is written after the request answered). */
async function changedFrom(id: string, before: string | null): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const now = await lastUsed(id);
    if (now !== before) return now!;
    await sleep(50);
  }
  assert.fail(`last_used_at of ${id} stayed ${before}`);
}

const direct = (url: string, key: string) => fetch(`${url}/workspaces`, { headers: { authorization: `Bearer ${key}` } });

describe('last used of an API key used directly', () => {
  it('is set by the first direct use, served by another process', async () => {
    const { id, key } = await createApiKey(alice, ['artifact:read']);
    assert.equal(await lastUsed(id), null);
    const start = Date.now();
    assert.equal((await direct(replica.url, key)).status, 200);
    const used = Date.parse(await changedFrom(id, null));
    assert.ok(used >= start - 1000 && used <= Date.now() + 1000, `last used ${new Date(used).toISOString()} is the use`);
  });

  it('does not move again within the interval, from either process, and moves after it', async () => {
    assert.equal(directUseIntervalMs, 60_000, 'at most once a minute');
    const { id, key } = await createApiKey(alice, ['artifact:read']);
    assert.equal((await direct(platform.url, key)).status, 200);
    const first = await changedFrom(id, null);

    // A busy key: many uses on both processes within the minute write nothing.
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all([...Array(4)].flatMap(() => [direct(platform.url, key), direct(replica.url, key)]));
      assert.deepEqual(
        answers.map((a) => a.status),
        Array(8).fill(200),
      );
      await sleep(100);
    }
    await sleep(500); // any record a use started has landed by now
    assert.equal(await lastUsed(id), first, 'no write within the interval');

    // As if the minute had passed: the store's value is older than the interval, and the next use moves it.
    const stale = new Date(Date.now() - directUseIntervalMs - 1000);
    await platform.services.db.collection('api_keys').updateOne({ _id: id as never }, { $set: { last_used_at: stale } });
    assert.equal(await lastUsed(id), stale.toISOString());
    const start = Date.now();
    assert.equal((await direct(replica.url, key)).status, 200);
    const moved = Date.parse(await changedFrom(id, stale.toISOString()));
    assert.ok(moved >= start - 1000, 'moved to the new use');
  });

  it('is still set by an exchange, and by a server credential exchange (SPEC §2.6)', async () => {
    const { id, key } = await createApiKey(alice, ['artifact:read']);
    const exchanged = await fetch(`${replica.url}/api-keys/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key }),
    });
    assert.equal(exchanged.status, 200);
    assert.notEqual(await lastUsed(id), null, 'recorded before the exchange answered');

    const cred = await createServerCredential(alice, ['artifact:read']);
    const read = async () => (await alice.get(`/server-credentials/${cred.client_id}`)).body.last_used_at as string | null;
    assert.equal(await read(), null);
    assert.equal((await exchange(replica.url, cred)).status, 200);
    assert.notEqual(await read(), null);
  });

  it('a revoked key used directly is refused and records nothing', async () => {
    const { id, key } = await createApiKey(alice, ['artifact:read']);
    assert.equal((await alice.delete(`/api-keys/${id}`)).status, 204);
    assert.equal((await direct(replica.url, key)).status, 401);
    await sleep(300);
    assert.equal(await platform.services.db.collection('api_keys').countDocuments({ _id: id as never }), 0);
  });
});
