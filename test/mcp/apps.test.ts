// MCP Apps (SEP-1865, issue #35) as clients see them: the tools that answer with an artifact name the
// platform's artifact viewer in `_meta.ui.resourceUri` (and the deprecated flat key), and the server
// lists and serves that `ui://` resource as `text/html;profile=mcp-app`, one self-contained page with
// no network. Through the TypeScript SDK v2 client and the MCP Inspector's CLI.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getToolUiResourceUri, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const run = promisify(execFile);
const viewerUri = 'ui://platform/artifact-viewer.html';
const artifactTools = ['create_artifact', 'get_artifact', 'update_artifact'];

let platform: TestPlatform;
let alice: Api;
let client: Client;

before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
  client = new Client({ name: 'apps-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${alice.token!}` } },
    }),
  );
});
after(async () => {
  await client?.close();
  await platform?.close();
});

/** `npm run mcp:inspect -- …` (scripts/mcp-inspect.sh), as test/mcp/inspector.test.ts runs it. */
async function inspector(...args: string[]): Promise<any> {
  try {
    const { stdout } = await run('bash', ['scripts/mcp-inspect.sh', ...args], {
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, PLATFORM_TOKEN: alice.token, MCP_URL: `${platform.url}/mcp` },
    });
    return JSON.parse(stdout);
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`inspector ${args.join(' ')} failed: ${stderr ?? ''} ${stdout ?? ''}`); // not the command line: it holds the token
  }
}

/** The page is one document that loads nothing: no external script, style, image, frame or fetch. */
function assertSelfContained(html: string): void {
  assert.match(html, /^<!doctype html>/i);
  assert.doesNotMatch(html, /<script[^>]+src=/i);
  assert.doesNotMatch(html, /<link[^>]+href=/i);
  assert.doesNotMatch(html, /<(img|iframe|embed|object)[^>]+src=/i);
  assert.doesNotMatch(html, /\bfetch\(|XMLHttpRequest|WebSocket|EventSource|importScripts/);
  assert.doesNotMatch(html, /url\(\s*['"]?https?:/i);
}

describe('MCP Apps on the platform tools', () => {
  it('names the artifact viewer on the tools that return an artifact (TS SDK v2), and lists and serves it', async () => {
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const { tools } = await client.listTools();
    const withApp = tools.filter((t) => getToolUiResourceUri(t) !== undefined).map((t) => t.name);
    assert.deepEqual(withApp.sort(), artifactTools);
    for (const name of artifactTools) {
      const tool = tools.find((t) => t.name === name)!;
      assert.deepEqual((tool._meta as any).ui, { resourceUri: viewerUri });
      assert.equal(tool._meta!['ui/resourceUri'], viewerUri, 'the flat key hosts before 2026-01-26 read');
      assert.equal(typeof tool._meta!.icon, 'string', 'the icon marker stays');
    }
    const { resources } = await client.listResources();
    const listed = resources.find((r) => r.uri === viewerUri);
    assert.ok(listed, 'the ui:// resource is listed');
    assert.equal(listed.mimeType, RESOURCE_MIME_TYPE);
    assert.deepEqual((listed._meta as any).ui.csp, { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });

    const read = await client.readResource({ uri: viewerUri });
    const [page] = read.contents as { uri: string; mimeType: string; text: string; _meta?: any }[];
    assert.equal(page!.uri, viewerUri);
    assert.equal(page!.mimeType, 'text/html;profile=mcp-app');
    assert.deepEqual(page!._meta.ui.csp.connectDomains, [], 'no network, said to the host');
    assertSelfContained(page!.text);
    assert.match(page!.text, /ui\/initialize/);
    assert.match(page!.text, /2026-01-26/, 'the handshake version of SPEC §4.7');
  });

  it('answers a read of the type viewer of an artifact whose type has none, or that is not visible, as not found', async () => {
    const ws = (await alice.post('/workspaces', { name: 'Apps' })).body.id;
    const created = await client.callTool({
      name: 'create_artifact',
      arguments: { title: 'Plain', content_type: 'text/plain', content: 'x', collection_id: ws },
    });
    const id = (created.structuredContent as { id: string }).id;
    for (const uri of [
      `ui://platform/artifacts/${id}/viewer.html`,
      'ui://platform/artifacts/01a2005a-c983-73be-abc3-2995c82b1866/viewer.html',
    ]) {
      await assert.rejects(client.readResource({ uri }), (err: Error & { code?: number; data?: { uri?: string } }) => {
        assert.equal(err.code, -32602, err.message);
        assert.equal(err.data?.uri, uri);
        return true;
      });
    }
  });

  it('shows the app to the MCP Inspector (CLI): the tools name it and the resource reads as HTML', async () => {
    const listed = await inspector('--method', 'tools/list');
    // What the Inspector's Apps tab checks (`_meta.ui.resourceUri`), and ext-apps' own reading of it.
    const apps = listed.tools.filter((t: { _meta?: { ui?: { resourceUri?: string } } }) => t._meta?.ui?.resourceUri);
    assert.deepEqual(apps.map((t: { name: string }) => t.name).sort(), artifactTools);
    assert.ok(apps.every((t: object) => getToolUiResourceUri(t) === viewerUri));
    const resources = await inspector('--method', 'resources/list');
    assert.ok(resources.resources.some((r: { uri: string; mimeType: string }) => r.uri === viewerUri && r.mimeType === RESOURCE_MIME_TYPE));
    const read = await inspector('--method', 'resources/read', '--uri', viewerUri);
    assert.equal(read.contents[0].mimeType, RESOURCE_MIME_TYPE);
    assertSelfContained(read.contents[0].text);
  });
});
