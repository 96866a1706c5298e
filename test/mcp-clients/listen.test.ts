// subscriptions/listen through an MCP client configuration's endpoint (issue #36 review): only the
// configuration's containers may be followed, and an open stream follows the configuration as it is
// now: an edit that takes its workspace away, archiving it or deleting it ends the stream.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { followTiming } from '../../src/mcp-server/subscriptions/follow.js';
import { createApiKey } from '../helpers/credentials.js';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const mcpClientType = 'application/vnd.platform.mcp-client+json';

let platform: TestPlatform;
let alice: Api & { userId: string };
let inside: string;
let outside: string;
let key: string;

async function workspace(name: string): Promise<string> {
  const reply = await alice.post('/workspaces', { name });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

const content = () => ({
  workspaces: [inside],
  collections: '*',
  tools: ['get_artifact'],
  scopes: ['artifact:read', 'events:subscribe'],
  auth: { type: 'api_key' },
});

async function configuration(): Promise<string> {
  const reply = await alice.post('/artifacts', {
    title: 'Follower',
    content_type: mcpClientType,
    content: JSON.stringify(content()),
    collection_id: inside,
  });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

async function connect(id: string): Promise<Client> {
  const client = new Client({ name: 'listen-config', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp/clients/${id}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  return client;
}

/** How the stream ended, or 'still open' after 15 s (the access check runs every 300 ms here). */
const ended = (sub: { closed: Promise<string> }) =>
  Promise.race([sub.closed, new Promise<string>((done) => setTimeout(() => done('still open'), 15_000).unref())]);

const uri = (id: string) => `platform://workspaces/${id}`;

before(async () => {
  platform = await startPlatform();
  alice = await platform.newUser();
  inside = await workspace('Inside');
  outside = await workspace('Outside');
  // The key reaches both workspaces: only the configuration keeps it to one.
  key = (await createApiKey(alice, ['artifact:read', 'artifact:write', 'artifact:manage', 'events:subscribe'])).key;
});
after(() => platform?.close());

describe("subscriptions/listen on a configuration's endpoint", () => {
  it('follows only its containers, and ends when it is edited away, archived or deleted', async () => {
    const check = followTiming.accessCheckMs;
    followTiming.accessCheckMs = 300;
    const id = await configuration();
    const client = await connect(id);
    try {
      const refused = await client.listen({ resourceSubscriptions: [uri(outside)] }).catch((err: unknown) => err);
      assert.ok(refused instanceof ProtocolError, String(refused));
      assert.equal(refused.code, -32602, 'a workspace outside the configuration cannot be followed');
      const read = await client.readResource({ uri: uri(outside) }).catch((err: unknown) => err);
      assert.ok(read instanceof ProtocolError && read.code === -32602, 'nor read as a resource');
      const mine = await client.readResource({ uri: uri(inside) });
      assert.equal(mine.contents.length, 1, 'its own workspace is read');

      // Edited: the workspace taken out of the configuration ends the stream that follows it.
      let sub = await client.listen({ resourceSubscriptions: [uri(inside)] });
      const edited = await alice.patch(`/artifacts/${id}`, { content: JSON.stringify({ ...content(), workspaces: [outside] }) });
      assert.equal(edited.status, 200, edited.text);
      assert.equal(await ended(sub), 'remote', 'the edit ended the stream');
      assert.equal((await alice.patch(`/artifacts/${id}`, { content: JSON.stringify(content()) })).status, 200);

      // Archived: switched off, open streams included.
      sub = await client.listen({ resourceSubscriptions: [uri(inside)] });
      const archived = await alice.post(`/artifacts/${id}/manage`, { action: 'archive' });
      assert.ok(archived.status < 300, archived.text);
      assert.equal(await ended(sub), 'remote', 'archiving ended the stream');
      const unarchived = await alice.post(`/artifacts/${id}/manage`, { action: 'unarchive' });
      assert.ok(unarchived.status < 300, unarchived.text);

      // Deleted.
      sub = await client.listen({ resourceSubscriptions: [uri(inside)] });
      const deleted = await alice.post(`/artifacts/${id}/manage`, { action: 'delete' });
      assert.ok(deleted.status < 300, deleted.text);
      assert.equal(await ended(sub), 'remote', 'deleting ended the stream');
    } finally {
      followTiming.accessCheckMs = check;
      await client.close();
    }
  });
});
