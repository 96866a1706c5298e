// The platform's MCP App (issue #35: the artifact viewer that get_artifact, create_artifact and
// update_artifact name) rendered by real MCP Apps hosts in headless Chromium, after the host sends the
// tool result: (1) the console's own viewer host (web/console/viewer/frame.tsx, in its sandbox
// frame), and (2) the reference host of @modelcontextprotocol/ext-apps (AppBridge) driving a real
// MCP client (@modelcontextprotocol/client) against /mcp, both bundled for the browser with esbuild.
// A markdown draft shows in the built-in viewer with the console's renderers. So does a note, whose
// type declares a viewer of its own (SPEC §2.10, examples/note-type-server): that viewer is another
// server's code, and the platform's app never loads it (docs/decisions.md). The app links to the
// console instead, and no script of the note viewer runs in the platform's app.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { freePort } from '../../temporal-dev/engines.js';
import { platformToolsetId } from '../../src/operations/builtin-servers.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { consolePage, newPerson, probe, type Person } from '../helpers/console.js';
import { eventually } from '../helpers/http.js';
import { noteTypeServerHttp, registerServer, type Started } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const noteType = 'application/vnd.example.note+json';

/** The two hosts, each a script exposing `window.host(token, …)`; served as a page of the platform's origin. */
const hosts = {
  console: `
    import { h, render } from 'preact';
    import { setTokens } from './web/console/api';
    import { ViewerFrame } from './web/console/viewer/frame';
    import { platformToolsetId } from './web/console/viewer/calls';
    window.toolsetId = platformToolsetId;
    window.host = (token, artifact, uri) => {
      setTokens({ access: token, expiresAt: Date.now() + 3_600_000 });
      render(h(ViewerFrame, { artifact, viewer: { server_id: platformToolsetId, uri } }), document.getElementById('host'));
    };`,
  reference: `
    import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
    import { AppBridge, PostMessageTransport, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
    window.host = async (token, name, args) => {
      const client = new Client({ name: 'reference-host', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href), { requestInit: { headers: { authorization: 'Bearer ' + token } } }));
      const tool = (await client.listTools()).tools.find((t) => t.name === name);
      const uri = getToolUiResourceUri(tool);
      const page = (await client.readResource({ uri })).contents[0];
      const result = await client.callTool({ name, arguments: args });
      const frame = document.createElement('iframe');
      frame.className = 'app';
      frame.sandbox = 'allow-scripts';
      document.getElementById('host').append(frame);
      // The bridge forwards the view's tools/call and resources/read to the server through the client.
      const bridge = new AppBridge(client, { name: 'reference-host', version: '1.0.0' }, { serverTools: {}, serverResources: {}, openLinks: {} }, { hostContext: { displayMode: 'inline', platform: 'web' } });
      // Every request and notification the view posts, in order (postMessage keeps a sender's order).
      const posted = [];
      addEventListener('message', (e) => e.source === frame.contentWindow && e.data?.method && posted.push(e.data.method));
      // A request the view answers (with Method not found): once answered, everything it posted before is in \`posted\`.
      window.probe = () => new Promise((resolve) => {
        const id = 'probe-' + posted.length;
        addEventListener('message', function reply(e) {
          if (e.source !== frame.contentWindow || e.data?.id !== id) return;
          removeEventListener('message', reply);
          resolve(posted.slice());
        });
        frame.contentWindow.postMessage({ jsonrpc: '2.0', id, method: 'ping' }, '*');
      });
      const opened = [];
      bridge.onopenlink = async ({ url }) => (opened.push(url), {});
      window.opened = opened;
      // The views that completed the handshake with this bridge, by the appInfo of their ui/initialize.
      const seen = [];
      bridge.oninitialized = () => {
        seen.push(bridge.getAppVersion()?.name);
        if (seen.length > 1) return;
        void bridge.sendToolInput({ arguments: args });
        void bridge.sendToolResult(result);
      };
      bridge.onsizechange = ({ height }) => height && (frame.style.height = height + 'px');
      window.seen = seen;
      await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
      frame.srcdoc = page.text;
      return { uri, mimeType: page.mimeType };
    };`,
};

async function bundle(contents: string): Promise<string> {
  const out = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'tsx', sourcefile: 'host.tsx' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2022', 'chrome120'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: 'web/console/tsconfig.json',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text.replace(/<\/(script)/gi, '<\\/$1');
}

describe('the platform MCP App in MCP Apps hosts', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let notes: Started;
  let person: Person;
  let ws: string;
  const pages: Record<keyof typeof hosts, string> = { console: '', reference: '' };

  before(async () => {
    // The hosts' pages are at http://127.0.0.1:<port>, a name the API answers but not its API_URI's:
    // the origin is listed for /mcp, as a deployment reached by another name would list it.
    const apiPort = await freePort();
    platform = await startPlatform(
      { PORT: String(apiPort), MCP_ALLOWED_ORIGINS: `http://127.0.0.1:${apiPort}`, MCP_OUTBOUND_ALLOW: '127.0.0.0/8' },
      { worker: true },
    );
    browser = await launchBrowser();
    person = await newPerson(platform);
    ws = (await person.api.post('/workspaces', { name: 'Apps' })).body.id;
    const port = await freePort();
    const serverId = await registerServer(person.api, ws, { transport: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } }, 'notes');
    notes = await noteTypeServerHttp(port, { PLATFORM_URL: platform.url });
    await eventually(
      async () => {
        const listed = await person.api.get(`/mcp/workspaces/${ws}/servers?refresh=true`);
        return listed.body.servers?.find((s: { id: string }) => s.id === serverId)?.content_types?.[0]?.ui?.viewer === 'note';
      },
      30_000,
      'the note type and its viewer listed',
    );
    for (const name of Object.keys(hosts) as (keyof typeof hosts)[])
      pages[name] =
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name} host</title></head><body><div id="host"></div><script>${await bundle(hosts[name])}</script></body></html>`;
  });
  after(async () => {
    await browser?.close();
    await notes?.close();
    await platform?.close();
  });

  /** A page of the platform's origin (so /mcp, the API and /console/sandbox are its own) running one host. */
  async function hostPage(name: keyof typeof hosts): Promise<Page & { dialogs: string[] }> {
    const { page, dialogs } = await consolePage(browser, { viewport: { width: 1000, height: 900 } });
    const path = `/__${name}-host.html`;
    await page.route(`${platform.url}${path}`, (route) => route.fulfill({ contentType: 'text/html', body: pages[name] }));
    await page.goto(`${platform.url}${path}`);
    return Object.assign(page, { dialogs });
  }

  async function created(title: string, content_type: string, content: string): Promise<Record<string, unknown>> {
    const reply = await person.api.post('/artifacts', { title, content_type, content, collection_id: ws });
    assert.equal(reply.status, 201, reply.text);
    return reply.body;
  }

  const markdown = '## Steps\n\nShip the **artifact viewer** to every host.\n\n- one\n- two';
  const note = (heading: string) => JSON.stringify({ heading, body: 'The note, in its own viewer.', tags: ['apps', 'viewer'] });

  /** The artifact as the built-in viewer shows it: its title, its type, and its markdown as elements. */
  async function assertBuiltIn(app: FrameLocator, title: string): Promise<void> {
    await app.getByRole('heading', { name: title, level: 1 }).waitFor();
    await app.getByText('text/markdown').waitFor();
    await app.getByRole('heading', { name: 'Steps' }).waitFor();
    assert.equal(await app.locator('strong').textContent(), 'artifact viewer');
    assert.equal(await app.getByRole('listitem').count(), 2);
  }

  /**
   * The note as the built-in viewer shows it: its title, its JSON pretty-printed, and a link to its page
   * in the console, where its type's viewer runs. None of what the note viewer's script writes
   * (examples/note-type-server/viewer.mjs: the tags as `#apps #viewer`, its call to describe_note).
   */
  async function assertNoteBuiltIn(app: FrameLocator, artifact: Record<string, unknown>, heading: string): Promise<void> {
    await app.getByRole('heading', { name: String(artifact.title), level: 1 }).waitFor();
    await app.getByText(noteType).waitFor();
    assert.match((await app.locator('pre').textContent()) ?? '', new RegExp(`"heading": "${heading}"`));
    const note = app.getByRole('note');
    assert.match((await note.textContent()) ?? '', /may have a viewer of its own\. That viewer runs in the platform's console, not here/);
    assert.equal(
      await note.getByRole('link', { name: 'open it in the console' }).getAttribute('href'),
      `${platform.url}/console/artifacts/${String(artifact.id)}`,
    );
    for (const written of ['#apps #viewer', 'Asking the server who this is for', 'The host refused the call'])
      assert.equal(await app.getByText(written).count(), 0, `the note viewer's script wrote "${written}"`);
  }

  it("renders in the console's own viewer host, built-in whatever the artifact's type", async () => {
    const page = await hostPage('console');
    assert.equal(await page.evaluate('window.toolsetId'), platformToolsetId, "the console's id of the platform toolset is the platform's");
    const draft = await created('Rollout plan', 'text/markdown', markdown);
    await page.evaluate(([token, artifact]) => (window as any).host(token, artifact, 'ui://platform/artifact-viewer.html'), [
      person.api.token!,
      draft,
    ] as const);
    const app = page.frameLocator('iframe.viewer-frame');
    await assertBuiltIn(app, 'Rollout plan');
    assert.ok(
      page.frames().some((f) => f.url().endsWith('/console/sandbox')),
      'in the console sandbox frame',
    );
    await screenshot(page, 'mcp-app-console-host');

    const typed = await created('A note', noteType, note('Noted in the console'));
    await page.evaluate(([token, artifact]) => (window as any).host(token, artifact, 'ui://platform/artifact-viewer.html'), [
      person.api.token!,
      typed,
    ] as const);
    await assertNoteBuiltIn(page.frameLocator('iframe.viewer-frame'), typed, 'Noted in the console');
    await page.context().close();
  });

  it('renders in the reference host (ext-apps AppBridge with the SDK client) after the tool result, built-in whatever the type', async () => {
    const page = await hostPage('reference');
    const draft = await created('Reference plan', 'text/markdown', markdown);
    const shown = (await page.evaluate(([token, id]) => (window as any).host(token, 'get_artifact', { id }), [
      person.api.token!,
      draft.id,
    ] as const)) as {
      uri: string;
      mimeType: string;
    };
    assert.deepEqual(shown, { uri: 'ui://platform/artifact-viewer.html', mimeType: 'text/html;profile=mcp-app' });
    const app = page.frameLocator('iframe.app');
    await assertBuiltIn(app, 'Reference plan');
    // The handshake went through the reference bridge: it saw the view initialize (SPEC §4.7).
    assert.deepEqual(await page.evaluate('window.seen'), ['platform-artifact-viewer']);
    await screenshot(page, 'mcp-app-reference-host');
    await page.context().close();

    // update_artifact carries the same app. A note's type has a viewer of its own, which the platform's
    // app never reads (the template it once read is refused) nor runs: it shows the note built-in.
    const typed = await created('Another note', noteType, note('Draft heading'));
    const page2 = await hostPage('reference');
    await page2.evaluate(([token, id, content]) => (window as any).host(token, 'update_artifact', { id, content }), [
      person.api.token!,
      typed.id,
      note('Noted in the reference host'),
    ] as const);
    const app2 = page2.frameLocator('iframe.app');
    await assertNoteBuiltIn(app2, typed, 'Noted in the reference host');
    // All the view asked of its host, up to now: the handshake and its size, never a resource to become.
    const posted = (await page2.evaluate('window.probe()')) as string[];
    assert.deepEqual([...new Set(posted)], ['ui/initialize', 'ui/notifications/initialized', 'ui/notifications/size-changed']);
    assert.deepEqual(await page2.evaluate('window.seen'), ['platform-artifact-viewer'], 'no other view initialized');
    // The link asks the host to open the console's page for the note (ui/open-link).
    await app2.getByRole('link', { name: 'open it in the console' }).click();
    await eventually(async () => ((await page2.evaluate('window.opened')) as string[]).length > 0, 10_000, 'ui/open-link');
    assert.deepEqual(await page2.evaluate('window.opened'), [`${platform.url}/console/artifacts/${String(typed.id)}`]);
    // Nor can any host read that viewer through the platform.
    const old = `ui://platform/artifacts/${String(typed.id)}/viewer.html`;
    const read = await person.api.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: old } },
      headers: { accept: 'application/json, text/event-stream' },
    });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.error?.code, -32602, read.text);
    assert.deepEqual(read.body.error?.data, { uri: old });
    await screenshot(page2, 'mcp-app-reference-host-typed');
    await page2.context().close();
  });

  it('shows markup in an artifact as text, and a failed tool call as its error, in the reference host', async () => {
    const hostile = await created(probe, 'text/plain', `${probe}<script>alert(2)</script>`);
    const page = await hostPage('reference');
    await page.evaluate(([token, id]) => (window as any).host(token, 'get_artifact', { id }), [person.api.token!, hostile.id] as const);
    const app = page.frameLocator('iframe.app');
    await app.getByRole('heading', { name: probe }).waitFor();
    assert.equal(await app.locator('pre').textContent(), `${probe}<script>alert(2)</script>`);
    assert.equal(await app.locator('img').count(), 0);
    await page.context().close();
    assert.deepEqual(page.dialogs, []);

    const missing = await hostPage('reference');
    await missing.evaluate(([token]) => (window as any).host(token, 'get_artifact', { id: '01a2005a-c983-73be-abc3-2995c82b1866' }), [
      person.api.token!,
    ] as const);
    await missing
      .frameLocator('iframe.app')
      .getByRole('alert')
      .filter({ hasText: 'No artifact with id 01a2005a-c983-73be-abc3-2995c82b1866 is visible to you' })
      .waitFor();
    await missing.context().close();
  });
});
