// The MCP Apps host (issue #20, SPEC §4.7, §5.7) in headless Chromium, with the project's note server
// (examples/note-type-server) over Streamable HTTP as a first-party server: opening a note in the
// console loads the server's `ui://` viewer in a sandboxed frame; the viewer gets the artifact as the
// tool result and calls `describe_note` through the host; the server receives a delegation token for
// the person, whose audience is its client id, and verifies it against the platform's JWKS. A viewer
// that reaches for the console, its cookies or the network gets nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Frame, Page } from 'playwright-core';
import { freePort } from '../../temporal-dev/engines.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { consolePage, newPerson, probe, signIn, type Person } from '../helpers/console.js';
import { eventually } from '../helpers/http.js';
import { noteTypeServerHttp, registerServer, type Started } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const noteType = 'application/vnd.example.note+json';

describe('MCP Apps viewers in the web console', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let notes: Started;
  let person: Person;
  let personId: string;
  let ws: string;
  let clientId: string;

  before(async () => {
    platform = await startPlatform({ MCP_OUTBOUND_ALLOW: '127.0.0.0/8' }, { worker: true });
    browser = await launchBrowser();
    person = await newPerson(platform);
    personId = (await person.api.get('/me')).body.id;
    ws = (await person.api.post('/workspaces', { name: 'Notes' })).body.id;
    // The server's address comes first; the credential names the registered server; then it starts.
    const port = await freePort();
    const serverId = await registerServer(person.api, ws, { transport: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } }, 'notes');
    const credential = await person.api.post('/server-credentials', {
      client_id: 'note-server',
      name: 'note server',
      server_id: serverId,
      host_id: 'examples',
      scopes: ['artifact:read'],
    });
    assert.equal(credential.status, 201, credential.text);
    clientId = credential.body.client_id;
    notes = await noteTypeServerHttp(port, {
      PLATFORM_URL: platform.url,
      PLATFORM_ISSUER: platform.config.apiUri,
      NOTE_SERVER_CLIENT_ID: clientId,
    });
    await eventually(
      async () => {
        const listed = await person.api.get(`/mcp/workspaces/${ws}/servers?refresh=true`);
        const server = listed.body.servers?.find((s: { id: string }) => s.id === serverId);
        return server?.content_types?.[0]?.ui?.viewer === 'note';
      },
      30_000,
      'the note type and its viewer listed',
    );
  });
  after(async () => {
    await browser?.close();
    await notes?.close();
    await platform?.close();
  });

  async function openNote(heading: string): Promise<{ page: Page; viewer: Frame; dialogs: string[] }> {
    const content = JSON.stringify({ heading, body: 'Ship the **note** viewer. Then rest.', tags: ['release', 'ui'] });
    const created = await person.api.post('/artifacts', { title: heading, content_type: noteType, content, collection_id: ws });
    assert.equal(created.status, 201, created.text);
    const { page, dialogs } = await consolePage(browser, { viewport: { width: 1100, height: 900 } });
    await signIn(page, platform, person, `/console/artifacts/${created.body.id}`);
    const frame = page.frameLocator('iframe.viewer-frame');
    await frame.getByRole('heading', { name: heading }).waitFor();
    const viewer = page.frames().find((f) => f.url().endsWith('/console/sandbox'));
    assert.ok(viewer, 'the viewer runs in the sandbox frame');
    return { page, viewer, dialogs };
  }

  it('shows the note in its viewer, which calls a tool through the host with a delegation token the server verifies', async () => {
    const { page, viewer } = await openNote('Release plan');
    const frame = page.frameLocator('iframe.viewer-frame');
    await frame.getByText('#release #ui').waitFor();
    // describe_note ran on the server, which verified the token against /.well-known/jwks.json with
    // its own client id as the audience, and found the person as the subject.
    await frame.getByText(`Shown to ${personId} (delegation verified)`).waitFor();
    await frame.getByText('6 words, 2 tags').waitFor();
    // The viewer itself never held the token: nothing in its page carries a JWT.
    assert.doesNotMatch(await viewer.content(), /eyJ[\w-]+\.[\w-]+\.[\w-]+/);
    await screenshot(page, 'viewer');
    await page.context().close();
  });

  it('keeps the viewer away from the console, its cookies, its storage and the network', async () => {
    const { page, viewer, dialogs } = await openNote(probe);
    // The platform's own cookie (the sign-in page's session) is set for this origin.
    assert.ok((await page.context().cookies(platform.url)).length > 0, 'the sign-in left a cookie for the platform');
    // As source text: what a viewer's own script could run (and untouched by the test's compiler).
    const reach = (await viewer.evaluate(`(async () => {
      const attempt = async (f) => {
        try {
          return { got: String(await f()) };
        } catch (err) {
          return { refused: err.name };
        }
      };
      return {
        origin: self.origin,
        cookie: await attempt(() => document.cookie),
        parentDocument: await attempt(() => window.parent.document.title),
        parentStorage: await attempt(() => window.parent.sessionStorage.length),
        ownStorage: await attempt(() => localStorage.length),
        topLocation: await attempt(() => window.top.location.href),
        api: await attempt(() => fetch('/me').then((r) => r.status)),
        elsewhere: await attempt(() => fetch('http://127.0.0.1:1/').then((r) => r.status)),
        // WebRTC reaches any host and no CSP in Chromium covers it; a fresh frame would bring it back.
        webrtc: typeof RTCPeerConnection,
        frames: await new Promise((resolve) => {
          const frame = document.createElement('iframe');
          frame.srcdoc = '<p>inner</p>';
          document.body.append(frame);
          setTimeout(() => resolve(document.querySelectorAll('iframe').length + window.frames.length), 200);
        }),
      };
    })()`)) as Record<string, unknown>;
    assert.equal(reach.origin, 'null', 'the viewer runs in an opaque origin');
    assert.deepEqual(reach.cookie, { refused: 'SecurityError' });
    assert.deepEqual(reach.parentDocument, { refused: 'SecurityError' });
    assert.deepEqual(reach.parentStorage, { refused: 'SecurityError' });
    assert.deepEqual(reach.ownStorage, { refused: 'SecurityError' });
    assert.deepEqual(reach.topLocation, { refused: 'SecurityError' });
    assert.deepEqual(reach.api, { refused: 'TypeError' }, 'the CSP allows no fetch, not even to the platform');
    assert.deepEqual(reach.elsewhere, { refused: 'TypeError' });
    assert.equal(reach.webrtc, 'undefined');
    assert.equal(reach.frames, 0, 'a frame the viewer adds is removed before it loads');
    // The heading carried markup; the viewer shows it as text, and nothing ran.
    assert.equal(await viewer.locator('h1').textContent(), probe);
    assert.equal(await viewer.locator('img').count(), 0);
    assert.deepEqual(dialogs, []);
    await page.context().close();
  });

  /** The frame's height every 250 ms for `ms`: [elapsed ms, px]. */
  async function heights(page: Page, ms: number): Promise<[number, number][]> {
    const frame = page.locator('iframe.viewer-frame');
    const seen: [number, number][] = [];
    const started = Date.now();
    while (Date.now() - started < ms) {
      seen.push([Date.now() - started, await frame.evaluate((el) => el.clientHeight)]);
      await page.waitForTimeout(250);
    }
    return seen;
  }

  /** The frame kept one height over the last `lastMs` of the samples, well below the 2,000 px cap. */
  function assertSettled(seen: [number, number][], lastMs: number): number {
    const end = seen.at(-1)![0];
    const tail = new Set(seen.filter(([at]) => at >= end - lastMs).map(([, px]) => px));
    assert.equal(tail.size, 1, `the frame's height kept changing: ${JSON.stringify(seen.slice(-20))}`);
    const [settled] = tail;
    assert.ok(settled! < 1000, `the frame settled at ${settled} px, near the cap`);
    return settled!;
  }

  it("sizes the note viewer's frame to its content, and the frame stays still (15 s)", async () => {
    const { page, viewer } = await openNote('Steady frame');
    await page.frameLocator('iframe.viewer-frame').getByText('6 words, 2 tags').waitFor();
    const seen = await heights(page, 15_000);
    const settled = assertSettled(seen, 5_000);
    // The frame shows the whole note, in standards mode (the sandbox keeps the viewer's doctype): the
    // viewer's page does not overflow it, and the frame is not much taller than the note.
    const inside = (await viewer.evaluate(
      `({ mode: document.compatMode, inner: innerHeight, bottom: Math.ceil(document.body.getBoundingClientRect().bottom), scroll: document.documentElement.scrollHeight })`,
    )) as { mode: string; inner: number; bottom: number; scroll: number };
    assert.equal(inside.mode, 'CSS1Compat');
    assert.equal(inside.inner, settled);
    assert.ok(inside.scroll <= settled, `the note (${inside.scroll} px) overflows its ${settled} px frame`);
    assert.ok(settled - inside.bottom < 60, `the note ends at ${inside.bottom} px in a ${settled} px frame`);
    await page.context().close();
  });

  it('stops a viewer whose size reports chase its own frame, and one that keeps asking for more', async () => {
    // A viewer reporting its frame's height plus a margin on every resize (the loop issue #30 found),
    // and one reporting a bigger height every 30 ms whatever happens: neither grows the frame for long.
    const hostile = {
      chasing: `(() => {
        const report = () => parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { height: innerHeight + 16 } }, '*');
        addEventListener('resize', report);
        report();
      })()`,
      greedy: `(() => {
        let height = innerHeight;
        setInterval(() => parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { height: (height += 20) } }, '*'), 30);
      })()`,
    };
    for (const [name, script] of Object.entries(hostile)) {
      const { page, viewer } = await openNote(`Hostile ${name}`);
      await page.frameLocator('iframe.viewer-frame').getByText('6 words, 2 tags').waitFor();
      const before = await page.locator('iframe.viewer-frame').evaluate((el) => el.clientHeight);
      await viewer.evaluate(script);
      const seen = await heights(page, 8_000);
      const settled = assertSettled(seen, 4_000);
      assert.ok(settled - before < 400, `${name}: the frame grew from ${before} to ${settled} px`);
      await page.context().close();
    }
  });

  it('serves the sandbox frame with a CSP that allows no network and only the console as its parent', async () => {
    const res = await fetch(`${platform.url}/console/sandbox`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy')!;
    assert.match(csp, /connect-src 'none'/);
    assert.match(csp, /frame-ancestors 'self'/);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'unsafe-inline'(;|$)/);
  });
});
