// An MCP client configuration cannot be widened through its own endpoint (issue #36 review): a client
// served there, even one granted writing in the configuration's workspace, cannot rewrite, revert or
// create a configuration, nor reach the platform's other tools through call_server_tool. Both protocol
// eras (the v2 client's tools/call takes the direct path, the v1 client's the SDK's server).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { platformToolsetId } from '../../src/operations/builtin-servers.js';
import { createApiKey } from '../helpers/credentials.js';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const mcpClientType = 'application/vnd.platform.mcp-client+json';

let platform: TestPlatform;
let alice: Api & { userId: string };
let inside: string;

before(async () => {
  platform = await startPlatform();
  alice = await platform.newUser();
  const reply = await alice.post('/workspaces', { name: 'Inside' });
  assert.equal(reply.status, 201, reply.text);
  inside = reply.body.id;
});
after(() => platform?.close());

const text = (r: object) => ((r as { content?: { text: string }[] }).content ?? [])[0]?.text ?? JSON.stringify(r);

describe("a configuration's endpoint and configurations", () => {
  it('never creates, rewrites or reverts a configuration, nor reaches the other tools through call_server_tool', async () => {
    const content = {
      workspaces: [inside],
      collections: '*',
      tools: ['get_artifact', 'create_artifact', 'update_artifact', 'call_server_tool'],
      scopes: ['artifact:read', 'artifact:write', 'artifact:invoke'],
      auth: { type: 'api_key' },
    };
    const created = await alice.post('/artifacts', {
      title: 'Writer',
      content_type: mcpClientType,
      content: JSON.stringify(content),
      collection_id: inside,
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    const note = await alice.post('/artifacts', { title: 'note', content_type: 'text/plain', content: 'x', collection_id: inside });
    assert.equal(note.status, 201, note.text);
    const key = (await createApiKey(alice, ['artifact:read', 'artifact:write', 'artifact:manage', 'artifact:invoke', 'search:read'])).key;
    const url = new URL(`${platform.url}/mcp/clients/${id}`);
    const headers = { authorization: `Bearer ${key}` };

    const modern = new ClientV2({ name: 'self-edit-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await modern.connect(new TransportV2(url, { requestInit: { headers } }));
    const legacy = new Client({ name: 'self-edit-v1', version: '1.0.0' });
    await legacy.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    try {
      for (const client of [modern, legacy]) {
        const widened = {
          ...content,
          tools: [...content.tools, 'manage_artifact', 'search'],
          scopes: [...content.scopes, 'artifact:manage'],
        };
        const rewrite = await client.callTool({ name: 'update_artifact', arguments: { id, content: JSON.stringify(widened) } });
        assert.equal(rewrite.isError, true, JSON.stringify(rewrite));
        assert.match(text(rewrite), /configuration's endpoint/);
        const retitled = await client.callTool({ name: 'update_artifact', arguments: { id, title: 'renamed' } });
        assert.equal(retitled.isError, true, 'the configuration itself is read-only here');
        const another = await client.callTool({
          name: 'create_artifact',
          arguments: {
            title: 'wider',
            content_type: `${mcpClientType}; charset=utf-8`,
            content: JSON.stringify(widened),
            collection_id: inside,
          },
        });
        assert.equal(another.isError, true, JSON.stringify(another));
        const turned = await client.callTool({
          name: 'update_artifact',
          arguments: { id: note.body.id, content_type: mcpClientType, content: JSON.stringify(widened) },
        });
        assert.equal(turned.isError, true, 'a note cannot become a configuration here');
        // The platform's own toolset is no way around the endpoint's tool list.
        const around = await client.callTool({
          name: 'call_server_tool',
          arguments: { server_id: platformToolsetId, name: 'manage_artifact', arguments: { id, action: 'archive' } },
        });
        assert.equal(around.isError, true, JSON.stringify(around));
        // Ordinary drafts are still written.
        const edited = await client.callTool({ name: 'update_artifact', arguments: { id: note.body.id, content: 'changed' } });
        assert.notEqual(edited.isError, true, text(edited));
      }
    } finally {
      await modern.close();
      await legacy.close();
    }
    const stored = await alice.get(`/artifacts/${id}`);
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.title, 'Writer');
    assert.equal(stored.body.archived_at ?? null, null);
    assert.deepEqual(JSON.parse(stored.body.content).tools, content.tools);
    const listed = await alice.get(`/artifacts?collection_id=${inside}&content_type=${encodeURIComponent(mcpClientType)}`);
    assert.deepEqual(
      (listed.body.items as { id: string }[]).map((a) => a.id),
      [id],
      'no other configuration was made',
    );
  });
});
