// An MCP client configuration's page in the web console (issue #36), in headless Chromium: what it
// grants, its endpoint, and the snippets for each client with copy buttons that put exactly the
// rendered text on the clipboard; an edit shows on the next visit; a title's markup stays text.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { consolePage, newPerson, probe, reloadSignedIn, signIn, type Person } from '../helpers/console.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const mcpClientType = 'application/vnd.platform.mcp-client+json';

describe('the console page of an MCP client configuration', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let person: Person;
  let ws: string;
  let id: string;

  before(async () => {
    platform = await startPlatform({}, { worker: false });
    browser = await launchBrowser();
    person = await newPerson(platform);
    ws = (await person.api.post('/workspaces', { name: 'Research' })).body.id;
    const created = await person.api.post('/artifacts', {
      title: `Research assistant ${probe}`,
      content_type: mcpClientType,
      content: JSON.stringify({
        name: 'research',
        workspaces: [ws],
        collections: '*',
        tools: ['search', 'get_artifact', 'create_artifact'],
        scopes: ['artifact:read', 'search:read'],
        auth: { type: 'api_key' },
      }),
      collection_id: ws,
    });
    assert.equal(created.status, 201, created.text);
    id = created.body.id;
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('shows the endpoint, what it grants and the snippets, and copies them', async () => {
    const { context, page, dialogs } = await consolePage(browser, {}, (context) =>
      context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.url }),
    );
    try {
      await signIn(page, platform, person, `/console/artifacts/${id}`);
      const body = page.getByRole('region', { name: 'MCP client configuration' });
      const endpoint = `${platform.url}/mcp/clients/${id}`;
      await body.getByText(endpoint, { exact: true }).waitFor();
      const tools = body.getByRole('list', { name: 'Tools offered' }).getByRole('listitem');
      assert.deepEqual(await tools.allInnerTexts(), ['search', 'get_artifact']);
      await body.getByText(/Never offered.*create_artifact/).waitFor();
      await body.getByText(/API key: the client sends it as a bearer token, read from PLATFORM_API_KEY/).waitFor();
      await body.getByRole('link', { name: ws }).waitFor();

      const rendered = (await person.api.get(`/artifacts/${id}/client-config`)).body as { snippets: { title: string; text: string }[] };
      for (const snippet of rendered.snippets) {
        const section = body.getByRole('region', { name: snippet.title });
        assert.equal(await section.locator('pre').innerText(), snippet.text, snippet.title);
        await section.getByRole('button', { name: `Copy the ${snippet.title} configuration` }).click();
        await section.getByRole('status').getByText('Copied to the clipboard.').waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), snippet.text, snippet.title);
      }
      await body.getByRole('button', { name: 'Copy the endpoint URL' }).click();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), endpoint);
      assert.equal(await page.locator('img[src="x"]').count(), 0, 'the title stays text');
      await screenshot(page, 'console-mcp-client');

      // An edit (OAuth now) shows on the next visit: no header in the snippets.
      const current = JSON.parse((await person.api.get(`/artifacts/${id}`)).body.content);
      const edited = await person.api.patch(`/artifacts/${id}`, { content: JSON.stringify({ ...current, auth: { type: 'oauth' } }) });
      assert.equal(edited.status, 200, edited.text);
      await reloadSignedIn(page, person);
      await body.getByText(/OAuth: the client signs in through the platform/).waitFor();
      const vscode = body.getByRole('region', { name: 'VS Code' }).locator('pre');
      assert.deepEqual(JSON.parse(await vscode.innerText()), { servers: { research: { type: 'http', url: endpoint } } });
      assert.deepEqual(dialogs, []);
    } finally {
      await context.close();
    }
  });
});
