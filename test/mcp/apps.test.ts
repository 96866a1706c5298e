// MCP Apps (SEP-1865, issue #35) as clients see them: the tools that answer with an artifact name the
// platform's artifact viewer in `_meta.ui.resourceUri` (and the deprecated flat key), and the server
// lists and serves that `ui://` resource as `text/html;profile=mcp-app`, one self-contained page with
// no network. Through the TypeScript SDK v2 client, the official Python SDK (`mcp` 2.3, the uv
// environment test/mcp/python-oauth-client.test.ts uses) and the MCP Inspector's CLI.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getToolUiResourceUri, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const run = promisify(execFile);
const viewerUri = 'ui://platform/artifact-viewer.html';
const artifactTools = ['create_artifact', 'get_artifact', 'update_artifact'];

const python = resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'uv', 'mcp-client', 'bin', 'python');
/** The Python SDK's view of the apps: the tools' `_meta.ui`, the listed `ui://` resources, the page read. */
const pythonClient = `
import asyncio, json, os, sys
import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

async def main():
    url, uri = sys.argv[1:3]
    http = httpx2.AsyncClient(headers={"authorization": "Bearer " + os.environ["PLATFORM_TOKEN"]}, timeout=httpx2.Timeout(30, read=60))
    async with http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            tools = (await client.list_tools()).tools
            resources = (await client.list_resources()).resources
            page = (await client.read_resource(uri)).contents[0]
            print(json.dumps({
                "protocolVersion": client.protocol_version,
                "apps": {t.name: (t.meta or {}).get("ui") for t in tools if (t.meta or {}).get("ui")},
                "listed": [{"uri": str(r.uri), "mimeType": r.mime_type} for r in resources if str(r.uri).startswith("ui://")],
                "read": {"mimeType": page.mime_type, "doctype": getattr(page, "text", "")[:15]},
            }))

asyncio.run(main())
`;

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

  it("serves no type's viewer: no ui:// template, a read of the old one refused, a page that reads nothing", async () => {
    // A type's viewer is another server's code: the platform's app never loads one (docs/decisions.md).
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.filter((t) => t.uriTemplate.startsWith('ui://')),
      [],
    );
    const ws = (await alice.post('/workspaces', { name: 'Apps' })).body.id;
    const created = await client.callTool({
      name: 'create_artifact',
      arguments: { title: 'Typed', content_type: 'application/vnd.example.note+json', content: '{"heading":"h"}', collection_id: ws },
    });
    const uri = `ui://platform/artifacts/${(created.structuredContent as { id: string }).id}/viewer.html`;
    await assert.rejects(client.readResource({ uri }), (err: Error & { code?: number; data?: { uri?: string } }) => {
      assert.equal(err.code, -32602, err.message);
      assert.equal(err.data?.uri, uri);
      return true;
    });
    const page = (await client.readResource({ uri: viewerUri })).contents[0] as { text: string };
    assert.doesNotMatch(page.text, /resources\/read|document\.write|platform-type-viewer/, 'the page asks its host for no other page');
    // Where it sends a person for the type's own viewer: the console under the base the client reached.
    assert.match(page.text, new RegExp(`<meta name="platform-console" content="${platform.url}/console/">`));
  });

  it('shows the app to the official Python SDK: the tools name it, the server lists it and serves the page', async () => {
    assert.ok(existsSync(python), `${python} is missing: run temporal-dev/install-mcp-servers.sh`);
    const { stdout } = await run(python, ['-c', pythonClient, `${platform.url}/mcp`, viewerUri], {
      timeout: 120_000,
      env: { ...process.env, PLATFORM_TOKEN: alice.token },
    });
    const seen = JSON.parse(stdout);
    assert.equal(seen.protocolVersion, '2026-07-28');
    assert.deepEqual(seen.apps, Object.fromEntries(artifactTools.map((name) => [name, { resourceUri: viewerUri }])));
    assert.deepEqual(seen.listed, [{ uri: viewerUri, mimeType: RESOURCE_MIME_TYPE }]);
    assert.deepEqual(seen.read, { mimeType: RESOURCE_MIME_TYPE, doctype: '<!doctype html>' });
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
