// Types and icons from a content-type server (issue #37; SPEC §2.10, §2.12), in headless Chromium:
// the project's note type server (examples/note-type-server, over stdio) ships type.json with
// `ui.label` "Note", `ui.icon` 🗒️ and `ui.color` #f5c542, and gives each tool `_meta.icon` 🗒️. A note
// in the workspace list wears that badge; the server's page shows its platform badge and its tools,
// each with its own icon ahead of the server's and the generic one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, newPerson, signIn, type Person } from '../helpers/console.js';
import { eventually } from '../helpers/http.js';
import { noteTypeServer, registerServer } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const noteType = 'application/vnd.example.note+json';

describe('type badges and icons from a content-type server', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let person: Person;
  let ws: string;
  let serverId: string;

  before(async () => {
    platform = await startPlatform({ ALLOW_STDIO_MCP_SERVERS: 'true' }, { worker: true });
    browser = await launchBrowser();
    person = await newPerson(platform);
    ws = (await person.api.post('/workspaces', { name: 'Notes' })).body.id as string;
    serverId = await registerServer(person.api, ws, noteTypeServer, 'note types');
    await eventually(
      async () => {
        const listed = await person.api.get(`/mcp/workspaces/${ws}/servers`);
        const server = listed.body.servers?.find((s: { id: string }) => s.id === serverId);
        return server?.content_types?.[0]?.ui?.label === 'Note' && server.tools.length > 0;
      },
      60_000,
      'the note type and its tools listed',
    );
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  it("badges a registered type by its type.json, and lists a server's tools with their icons", async () => {
    const created = await person.api.post('/artifacts', {
      title: 'Release plan',
      content_type: noteType,
      content: JSON.stringify({ heading: 'Release plan', body: 'Ship it on Friday.', tags: ['release'] }),
      collection_id: ws,
    });
    assert.equal(created.status, 201, created.text);

    const { context, page } = await consolePage(browser);
    await signIn(page, platform, person, `/console/workspaces/${ws}`);
    const list = page.getByRole('list', { name: 'Artifacts' });
    await list.getByRole('link', { name: 'Release plan' }).waitFor();
    const note = list.getByRole('listitem').filter({ hasText: 'Release plan' }).getByTestId('type-badge');
    // The registered definition arrives with the catalog: wait for its label, not the MIME type's.
    await page.waitForFunction((type) => document.querySelector(`[data-type="${type}"] .type-label`)?.textContent === 'Note', noteType);
    assert.equal(await note.textContent(), '🗒️Note');
    assert.equal(await note.getAttribute('title'), noteType);
    assert.equal(await note.evaluate((el) => getComputedStyle(el).borderLeftColor), 'rgb(245, 197, 66)');
    const server = list.getByRole('listitem').filter({ hasText: 'note types' }).getByTestId('type-badge');
    assert.equal(await server.textContent(), '🔌MCP server');

    await list.getByRole('link', { name: 'note types' }).click();
    await page.getByRole('heading', { level: 1, name: 'note types' }).waitFor();
    const tools = page.getByRole('list', { name: 'Tools of note types' });
    await tools.getByRole('listitem').first().waitFor();
    const items = await tools.getByRole('listitem').allTextContents();
    assert.deepEqual(
      items.map((t) => t.trim()).sort(),
      ['🗒️ describe_note', '🗒️ extract_text', '🗒️ on_create', '🗒️ summarize'],
      'each tool with its own icon',
    );
    await context.close();
  });
});
