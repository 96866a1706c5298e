// subscriptions/listen (protocol 2026-07-28) at /mcp with the official clients: a client following a
// workspace or collection it reads hears of each change there and of nothing else; a resource it
// cannot read is refused as resources/read refuses it; a revoked share or key ends the stream; a
// client that leaves leaves nothing behind. 2025 clients are not offered resource subscriptions.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, describe, it } from 'node:test';
import { Client, ProtocolError, StreamableHTTPClientTransport, type McpSubscription } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { eventStreams } from '../../src/api/routes/event-stream.js';
import { followTiming } from '../../src/mcp-server/subscriptions/follow.js';
import { listenStreamsOpen } from '../../src/mcp-server/subscriptions/serve.js';
import { containerWatches } from '../../src/mcp-server/subscriptions/watch.js';
import { commitInto } from '../helpers/commit.js';
import { createApiKey } from '../helpers/credentials.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };

before(async () => {
  platform = await startPlatform();
  alice = await platform.newUser();
  bob = await platform.newUser();
});
after(() => platform.close());

const workspaceUri = (id: string) => `platform://workspaces/${id}`;
const collectionUri = (id: string) => `platform://collections/${id}`;

/** A TS SDK v2 client at 2026-07-28, with every notifications/resources/updated it hears. */
async function modernClient(token: string): Promise<{ client: Client; updates: string[] }> {
  const client = new Client({ name: 'listen-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const updates: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  return { client, updates };
}

/** Resolves once `updates` holds `count` notifications for `uri`. */
const heard = (updates: string[], uri: string, count: number, what: string) =>
  eventually(async () => updates.filter((u) => u === uri).length >= count, 30_000, what);

async function workspace(owner: Api, name = 'followed'): Promise<string> {
  const reply = await owner.post('/workspaces', { name });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

async function create(owner: Api, ws: string, title: string): Promise<string> {
  const reply = await owner.post('/artifacts', { title, content_type: 'text/plain', content: title, collection_id: ws });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

/** Nothing is held for listen streams any more: no stream slot, no watch, the gauge at 0. */
async function nothingHeld(): Promise<void> {
  const held = async () => ({
    slots: eventStreams(platform.services).size,
    watches: containerWatches(platform.services).size,
    gauge: (await listenStreamsOpen.get()).values[0]?.value,
  });
  await eventually(
    async () => {
      const now = await held();
      return now.slots === 0 && now.watches === 0 && now.gauge === 0;
    },
    10_000,
    'no open listen stream, slot or watch',
  ).catch(async (err: Error) => {
    throw new Error(`${err.message}: ${JSON.stringify(await held())}`);
  });
}

/**
 * A full garbage collection now (the server runs in this process). What a stream's end relies on must
 * be held by the stream itself: a web Request the SDK no longer references is collected here.
 */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('subscriptions/listen', () => {
  it('tells a client following a workspace of each artifact created, updated, archived and deleted there, and of nothing elsewhere', async () => {
    const ws = await workspace(alice);
    const elsewhere = await workspace(alice, 'not followed');
    const { client, updates } = await modernClient(alice.token!);
    let sub: McpSubscription | undefined;
    try {
      sub = await client.listen({ resourceSubscriptions: [workspaceUri(ws)], toolsListChanged: true });
      assert.deepEqual(sub.honoredFilter, { resourceSubscriptions: [workspaceUri(ws)] }, 'only what the server delivers is acknowledged');
      assert.equal(containerWatches(platform.services).size, 1);

      await create(alice, elsewhere, 'a write in another workspace');
      const id = await create(alice, ws, 'followed draft');
      await heard(updates, workspaceUri(ws), 1, 'the notification of the create');
      const patched = await alice.patch(`/artifacts/${id}`, { title: 'renamed' });
      assert.equal(patched.status, 200, patched.text);
      await heard(updates, workspaceUri(ws), 2, 'the notification of the update');
      const archived = await alice.post(`/artifacts/${id}/manage`, { action: 'archive' });
      assert.equal(archived.status, 200, archived.text);
      await heard(updates, workspaceUri(ws), 3, 'the notification of the archive');
      assert.equal((await alice.delete(`/artifacts/${id}`)).status, 204);
      await heard(updates, workspaceUri(ws), 4, 'the notification of the delete');

      // The other workspace's event was recorded long before the last notification: it was never sent.
      const recorded = await alice.get(`/workspaces/${elsewhere}/events`);
      assert.equal(recorded.body.items.length, 1);
      assert.deepEqual([...new Set(updates)], [workspaceUri(ws)]);
      const read = await client.readResource({ uri: workspaceUri(ws) });
      assert.equal(JSON.parse((read.contents[0] as { text: string }).text).id, ws, 'the resource notified is the one read');
    } finally {
      await sub?.close();
      await client.close();
    }
    assert.equal(await sub!.closed, 'local');
    await nothingHeld();
  });

  it('shares one watch of a container among every stream that follows it, and lets go with the last', async () => {
    const ws = await workspace(alice, 'popular');
    const first = await modernClient(alice.token!);
    const second = await modernClient(alice.token!);
    const [one, two] = [
      await first.client.listen({ resourceSubscriptions: [workspaceUri(ws)] }),
      await second.client.listen({ resourceSubscriptions: [workspaceUri(ws)] }),
    ];
    try {
      assert.equal(eventStreams(platform.services).size, 2);
      assert.equal(containerWatches(platform.services).size, 1, 'one read per poll, whatever the number of streams');
      await create(alice, ws, 'heard twice');
      await heard(first.updates, workspaceUri(ws), 1, "the first stream's notification");
      await heard(second.updates, workspaceUri(ws), 1, "the second stream's notification");
      await one.close();
      await eventually(async () => eventStreams(platform.services).size === 1, 10_000, 'the first stream gone');
      assert.equal(containerWatches(platform.services).size, 1, 'still watched for the second stream');
    } finally {
      await one.close();
      await two.close();
      await first.client.close();
      await second.client.close();
    }
    await nothingHeld();
  });

  it('tells a client following a collection when a commit into it is applied', async () => {
    const collection = (await alice.post('/collections', { name: 'followed collection' })).body.id as string;
    const { client, updates } = await modernClient(alice.token!);
    const sub = await client.listen({ resourceSubscriptions: [collectionUri(collection)] });
    try {
      await commitInto(alice, collection, [{ title: 'committed while followed' }]);
      await heard(updates, collectionUri(collection), 1, 'the notification of the commit');
    } finally {
      await sub.close();
      await client.close();
    }
    await nothingHeld();
  });

  it('refuses a resource the caller cannot read, one that does not exist and one that is not a container, as resources/read does (-32602 with the URI)', async () => {
    const alices = await workspace(alice, 'private');
    const { client } = await modernClient(bob.token!);
    try {
      for (const uri of [
        workspaceUri(alices),
        collectionUri('01a2005a-c983-73be-abc3-2995c82b1866'),
        'platform://artifacts/01a2005a-c983-73be-abc3-2995c82b1866',
        'file:///etc/passwd',
      ]) {
        const refused = await client.listen({ resourceSubscriptions: [uri] }).then(
          () => assert.fail(`${uri} was acknowledged`),
          (err: unknown) => err,
        );
        assert.ok(refused instanceof ProtocolError, String(refused));
        assert.equal(refused.code, -32602, uri);
        assert.deepEqual(refused.data, { uri });
        // The same answer resources/read gives: which of these exist is not told.
        const read = await client.readResource({ uri: workspaceUri(alices) }).catch((err: ProtocolError) => err);
        assert.equal((read as ProtocolError).code, -32602);
      }
      // One readable and one unreadable URI: the whole request is refused, nothing is followed.
      const mine = await workspace(bob);
      const mixed = await client.listen({ resourceSubscriptions: [workspaceUri(mine), workspaceUri(alices)] }).catch((err) => err);
      assert.equal((mixed as ProtocolError).code, -32602);
      assert.equal(containerWatches(platform.services).size, 0);
    } finally {
      await client.close();
    }
    await nothingHeld();
  });

  it('stops at once when a share is revoked: the stream ends with an error naming the resource, and nothing of the change is sent', async () => {
    const ws = await workspace(alice, 'shared');
    const shared = await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'R' });
    assert.equal(shared.status, 200, shared.text);
    const { client, updates } = await modernClient(bob.token!);
    const sub = await client.listen({ resourceSubscriptions: [workspaceUri(ws)] });
    try {
      await create(alice, ws, 'seen by bob');
      await heard(updates, workspaceUri(ws), 1, "bob's notification while shared");
      assert.equal((await alice.delete(`/workspaces/${ws}/shares/${bob.userId}`)).status, 204);
      await create(alice, ws, 'after the share was revoked');
      assert.equal(await sub.closed, 'remote', 'the server ended the stream');
      assert.equal(updates.length, 1, 'no notification after the revocation');
      const again = await client.listen({ resourceSubscriptions: [workspaceUri(ws)] }).catch((err) => err);
      assert.equal((again as ProtocolError).code, -32602, 'listening again is refused');
    } finally {
      await sub.close();
      await client.close();
    }
    await nothingHeld();
  });

  it('ends the stream when the API key it was opened with is revoked', async () => {
    const ws = await workspace(alice, 'key');
    const key = await createApiKey(alice, ['artifact:read']);
    const { client } = await modernClient(key.key);
    const check = followTiming.accessCheckMs;
    followTiming.accessCheckMs = 300;
    try {
      const sub = await client.listen({ resourceSubscriptions: [workspaceUri(ws)] });
      assert.equal((await alice.delete(`/api-keys/${key.id}`)).status, 204);
      assert.equal(await sub.closed, 'remote');
    } finally {
      followTiming.accessCheckMs = check;
      await client.close();
    }
    await nothingHeld();
  });

  it('closes gracefully when the server stops its streams (shutdown): the listen request gets its result', async () => {
    const ws = await workspace(alice, 'shutdown');
    const { client } = await modernClient(alice.token!);
    try {
      const sub = await client.listen({ resourceSubscriptions: [workspaceUri(ws)] });
      eventStreams(platform.services).stopAll();
      assert.equal(await sub.closed, 'graceful');
    } finally {
      await client.close();
    }
    await nothingHeld();
  });

  it('lets go of everything when the client closes, and ends gracefully on shutdown, after a garbage collection', async () => {
    const ws = await workspace(alice, 'collected');
    const { client } = await modernClient(alice.token!);
    try {
      const leaving = await client.listen({ resourceSubscriptions: [workspaceUri(ws)] });
      const staying = await client.listen({ resourceSubscriptions: [workspaceUri(ws)] });
      assert.equal(eventStreams(platform.services).size, 2);
      collectGarbage();
      await leaving.close();
      await eventually(async () => eventStreams(platform.services).size === 1, 10_000, 'the closed stream let go after a collection');
      eventStreams(platform.services).stopAll();
      const closed = await Promise.race([staying.closed, sleep(10_000).then(() => 'still open')]);
      assert.equal(closed, 'graceful', 'the shutdown reached the stream after a collection');
    } finally {
      await client.close();
    }
    await nothingHeld();
  });

  it('holds nothing once the client goes away without a word (its connection dropped)', async () => {
    const ws = await workspace(alice, 'abandoned');
    const { client, updates } = await modernClient(alice.token!);
    const aborter = new AbortController();
    await client.listen({ resourceSubscriptions: [workspaceUri(ws)] }, { signal: aborter.signal });
    assert.equal(eventStreams(platform.services).size, 1);
    assert.equal((await listenStreamsOpen.get()).values[0]?.value, 1);
    aborter.abort();
    await nothingHeld();
    await create(alice, ws, 'after the client left');
    await client.close();
    assert.equal(updates.length, 0);
  });

  it('answers a listen request over plain HTTP as the spec frames it: the acknowledgment first, each notification stamped with the subscription id', async () => {
    const ws = await workspace(alice, 'raw');
    const aborter = new AbortController();
    const reply = await fetch(`${platform.url}/mcp`, {
      method: 'POST',
      signal: aborter.signal,
      headers: {
        authorization: `Bearer ${alice.token!}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'subscriptions/listen',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
          notifications: { resourceSubscriptions: [workspaceUri(ws)] },
        },
      }),
    });
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = reply.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const next = async (): Promise<Record<string, unknown>> => {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(block);
          if (data) return JSON.parse(data[1]!);
          continue; // a keep-alive comment
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    };
    try {
      const ack = await next();
      assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
      assert.deepEqual(ack.params, {
        notifications: { resourceSubscriptions: [workspaceUri(ws)] },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 7 },
      });
      await create(alice, ws, 'raw');
      const note = await next();
      assert.deepEqual(note, {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: workspaceUri(ws), _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } },
      });
    } finally {
      aborter.abort();
    }
    await nothingHeld();
  });

  it('offers resource subscriptions on 2026-07-28 only: a 2025-11-25 client is not told of them, and resources/subscribe stays unsupported', async () => {
    const modern = await modernClient(alice.token!);
    try {
      assert.equal(modern.client.getServerCapabilities()?.resources?.subscribe, true);
    } finally {
      await modern.client.close();
    }
    const legacy = new LegacyClient({ name: 'listen-test-2025', version: '1.0.0' });
    await legacy.connect(
      new LegacyTransport(new URL(`${platform.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${alice.token!}` } } }),
    );
    try {
      assert.notEqual(legacy.getServerCapabilities()?.resources?.subscribe, true);
      const ws = await workspace(alice, 'legacy');
      const refused = await legacy
        .request({ method: 'resources/subscribe', params: { uri: workspaceUri(ws) } }, EmptyResultSchema)
        .catch((err: { code?: number }) => err);
      assert.equal((refused as { code?: number }).code, -32601);
    } finally {
      await legacy.close();
    }
  });
});

const python = resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'uv', 'mcp-client', 'bin', 'python');

/**
 * The official Python SDK (`mcp` 2.3.0): refused for a resource it cannot read, then follows a
 * workspace; prints `{"ack": ...}` once acknowledged, and the first event it hears.
 */
const pythonScript = `
import asyncio, json, sys
import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

async def main():
    url, token, uri, refused_uri = sys.argv[1:5]
    out = {}
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=120))
    async with http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            out["protocolVersion"] = client.protocol_version
            try:
                async with client.listen(resource_subscriptions=[refused_uri]):
                    out["refused"] = None
            except MCPError as err:
                out["refused"] = {"code": err.code, "data": err.data}
            async with client.listen(resource_subscriptions=[uri]) as sub:
                print(json.dumps({"ack": sub.honored.resource_subscriptions}), flush=True)
                async for event in sub:
                    out["event"] = {"type": type(event).__name__, "uri": getattr(event, "uri", None)}
                    break
    print(json.dumps(out), flush=True)

asyncio.run(main())
`;

describe('subscriptions/listen with the Python SDK', () => {
  it('is refused for a workspace it cannot read, then hears of an artifact created in one it follows', { timeout: 120_000 }, async () => {
    const ws = await workspace(alice, 'python');
    const hidden = await workspace(bob, 'not for alice');
    const dir = mkdtempSync(join(tmpdir(), 'listen-py-'));
    const script = join(dir, 'listen.py');
    writeFileSync(script, pythonScript);
    const child = spawn(python, [script, `${platform.url}/mcp`, alice.token!, workspaceUri(ws), workspaceUri(hidden)], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => child.kill(), 100_000);
    try {
      const report: Record<string, unknown> = await new Promise((done, fail) => {
        lines.on('line', (line) => {
          const message = JSON.parse(line) as Record<string, unknown>;
          if ('ack' in message) {
            assert.deepEqual(message.ack, [workspaceUri(ws)]);
            void create(alice, ws, 'from REST, heard in Python').catch(fail);
          } else done(message);
        });
        child.once('exit', (code) => fail(new Error(`python exited ${code}: ${stderr}`)));
      });
      assert.equal(report.protocolVersion, '2026-07-28');
      assert.deepEqual(report.refused, { code: -32602, data: { uri: workspaceUri(hidden) } });
      assert.deepEqual(report.event, { type: 'ResourceUpdated', uri: workspaceUri(ws) });
    } finally {
      clearTimeout(timer);
      child.kill();
    }
    await nothingHeld();
  });
});
