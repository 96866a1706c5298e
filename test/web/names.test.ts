// Names, never raw ids (issue #37), in headless Chromium: a collaborator opening Ada's drafts reads
// her e-mail, the API key and server credential they came through by name, the agent that changed one
// ("via tag-keywords (agent)") with a link to its run, and a deleted source draft as "(deleted
// artifact)" with its title; Ada reads "you". Lists show each type's badge (SPEC §2.10): its label,
// icon and colour, for a common type and a platform type.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { agentId } from '../../src/invocations/agents/registry.js';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, draft, newPerson, signIn, type Person } from '../helpers/console.js';
import { asServer, createServerCredential } from '../helpers/credentials.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

/** Goes to a console path the way the console's links do (a reload would sign in again). */
async function inConsole(page: Page, path: string) {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
}

/** The artifact page's "Updated" line, once every name in it is looked up. */
async function updatedLine(page: Page): Promise<string> {
  const updated = page.getByTestId('artifact-updated');
  await updated.waitFor();
  await page.waitForFunction(() => !document.querySelector('[data-testid="artifact-updated"]')?.textContent?.includes('…'));
  return updated.innerText();
}

describe('names in the console', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let ada: Person;
  let bob: Person;
  let adaId: string;
  let bobId: string;

  before(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    ada = await newPerson(platform);
    bob = await newPerson(platform);
    adaId = (await ada.api.get('/me')).body.id;
    bobId = (await bob.api.get('/me')).body.id;
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('names people, credentials, agents and deleted drafts, and badges types', async () => {
    const ws = (await ada.api.post('/workspaces', { name: 'Observatory' })).body.id as string;
    assert.equal((await ada.api.post(`/workspaces/${ws}/shares`, { person_id: bobId, flags: 'R' })).status, 200);

    // Through an API key Ada named "ci-bot".
    const keyReply = await ada.api.post('/api-keys', { name: 'ci-bot', scopes: ['artifact:read', 'artifact:write'] });
    assert.equal(keyReply.status, 201, keyReply.text);
    const byKey = await ada.api.withToken(keyReply.body.key).post('/artifacts', {
      title: 'Key note',
      content_type: 'text/markdown',
      content: 'Written by the CI.',
      collection_id: ws,
    });
    assert.equal(byKey.status, 201, byKey.text);

    // Through a server credential ("test server").
    const cred = await createServerCredential(ada.api, ['artifact:read', 'artifact:write']);
    const byServer = await (
      await asServer(platform.url, cred)
    ).post('/artifacts', {
      title: 'Server note',
      content_type: 'application/json',
      content: '{"from":"server"}',
      collection_id: ws,
    });
    assert.equal(byServer.status, 201, byServer.text);

    // Changed by an agent run.
    const star = await draft(ada.api, ws, 'Star chart', 'The telescope points north.');
    const run = await ada.api.post(`/artifacts/${agentId('tag-keywords')}/invoke`, {
      workspace_id: ws,
      mode: 'apply',
      params: { rules: { optics: ['telescope'] } },
    });
    assert.equal(run.status, 200, run.text);
    assert.equal(run.body.status, 'completed', run.text);
    const invocation = run.body.invocation_id as string;

    // Derived from a draft deleted since.
    const source = await draft(ada.api, ws, 'Old sketch', 'first');
    const derived = await ada.api.post('/artifacts', {
      title: 'Clean copy',
      content_type: 'text/markdown',
      content: 'second',
      collection_id: ws,
      derived_from: source,
    });
    assert.equal(derived.status, 201, derived.text);
    assert.equal((await ada.api.delete(`/artifacts/${source}`)).status, 204);

    // A platform type.
    const client = await ada.api.post('/artifacts', {
      title: 'Reader client',
      content_type: 'application/vnd.platform.mcp-client+json',
      content: JSON.stringify({
        workspaces: '*',
        collections: '*',
        tools: ['get_artifact'],
        scopes: ['artifact:read'],
        auth: { type: 'oauth' },
      }),
      collection_id: ws,
    });
    assert.equal(client.status, 201, client.text);

    const { context, page } = await consolePage(browser);
    await signIn(page, platform, bob, `/console/artifacts/${byKey.body.id}`);
    await page.getByRole('heading', { level: 1, name: 'Key note' }).waitFor();
    const created = page.getByTestId('artifact-created');
    await page.waitForFunction(() => !document.querySelector('[data-testid="artifact-created"]')?.textContent?.includes('…'));
    assert.match(await created.innerText(), new RegExp(`^by ${ada.email.replace(/[.]/g, '\\.')}, `));
    const keyLine = await updatedLine(page);
    assert.match(keyLine, new RegExp(`by ${ada.email.replace(/[.]/g, '\\.')} through ci-bot \\(API key\\), over the REST API`));
    const noIds = (text: string) => {
      for (const id of [adaId, keyReply.body.id, cred.client_id, invocation, source])
        assert.ok(!text.includes(id), `an id is shown: ${id} in ${text}`);
    };
    noIds(await page.locator('.facts').innerText());
    assert.equal(await page.locator('.facts pre.json').count(), 0, 'no provenance as JSON');

    await inConsole(page, `/console/artifacts/${byServer.body.id}`);
    await page.getByRole('heading', { level: 1, name: 'Server note' }).waitFor();
    assert.match(await updatedLine(page), /through test server \(server credential\)/);
    noIds(await page.locator('.facts').innerText());

    await inConsole(page, `/console/artifacts/${star}`);
    await page.getByRole('heading', { level: 1, name: 'Star chart' }).waitFor();
    assert.match(await updatedLine(page), new RegExp(`by ${ada.email.replace(/[.]/g, '\\.')} via tag-keywords \\(agent\\) \\(its run\\)`));
    assert.equal(
      await page.getByTestId('artifact-updated').getByTestId('via-invocation').getAttribute('href'),
      `/console/invocations/${invocation}`,
    );
    noIds(await page.locator('.facts').innerText());

    await inConsole(page, `/console/artifacts/${derived.body.id}`);
    await page.getByRole('heading', { level: 1, name: 'Clean copy' }).waitFor();
    assert.match(await updatedLine(page), /from \(deleted artifact\) Old sketch/);
    noIds(await page.locator('.facts').innerText());

    // The workspace's list: each artifact with its type's badge, and who last changed it by name.
    await inConsole(page, `/console/workspaces/${ws}`);
    const list = page.getByRole('list', { name: 'Artifacts' });
    await list.getByRole('link', { name: 'Reader client' }).waitFor();
    await page.waitForFunction(() => ![...document.querySelectorAll('.artifacts .name')].some((n) => n.textContent === '…'));
    const badge = (title: string) => list.getByRole('listitem').filter({ hasText: title }).getByTestId('type-badge');
    assert.equal(await badge('Reader client').textContent(), '🧩MCP client');
    assert.equal(await badge('Reader client').getAttribute('title'), 'application/vnd.platform.mcp-client+json');
    assert.equal(await badge('Reader client').evaluate((el) => getComputedStyle(el).borderLeftColor), 'rgb(8, 145, 178)'); // #0891b2
    assert.equal(await badge('Key note').textContent(), '📝Markdown');
    assert.equal(await badge('Key note').evaluate((el) => getComputedStyle(el).borderLeftColor), 'rgb(37, 99, 235)'); // #2563eb
    assert.equal(await badge('Server note').textContent(), '🔣JSON');
    const row = await list.getByRole('listitem').filter({ hasText: 'Key note' }).innerText();
    assert.match(row, new RegExp(`updated by ${ada.email.replace(/[.]/g, '\\.')}`));
    noIds(await list.innerText());
    await context.close();

    // Ada reads herself as "you".
    const mine = await consolePage(browser);
    await signIn(mine.page, platform, ada, `/console/artifacts/${star}`);
    await mine.page.getByRole('heading', { level: 1, name: 'Star chart' }).waitFor();
    assert.match(await updatedLine(mine.page), /^by you via tag-keywords \(agent\)/);
    await mine.context.close();
  });

  it('says "another person" and "an API key" where the reader may not know them, never the id', async () => {
    // Carol writes into Ada's workspace through her API key, then Ada stops sharing it with her: Carol
    // is no longer someone Ada works with, so the console names neither her nor her key to Ada.
    const carol = await newPerson(platform);
    const carolId = (await carol.api.get('/me')).body.id as string;
    const ws = (await ada.api.post('/workspaces', { name: 'Former collaboration' })).body.id as string;
    assert.equal((await ada.api.post(`/workspaces/${ws}/shares`, { person_id: carolId, flags: 'RC' })).status, 200);
    const carolKey = await carol.api.post('/api-keys', { name: 'carol-laptop', scopes: ['artifact:read', 'artifact:write'] });
    assert.equal(carolKey.status, 201, carolKey.text);
    const written = await carol.api.withToken(carolKey.body.key).post('/artifacts', {
      title: 'Guest note',
      content_type: 'text/markdown',
      content: 'from Carol',
      collection_id: ws,
    });
    assert.equal(written.status, 201, written.text);
    assert.equal((await ada.api.delete(`/workspaces/${ws}/shares/${carolId}`)).status, 204);

    const { context, page } = await consolePage(browser);
    await signIn(page, platform, ada, `/console/artifacts/${written.body.id}`);
    await page.getByRole('heading', { level: 1, name: 'Guest note' }).waitFor();
    const line = await updatedLine(page);
    assert.match(line, /^by another person through an API key, over the REST API/);
    for (const hidden of [carol.email, 'carol-laptop', carolId, carolKey.body.id])
      assert.ok(!line.includes(hidden), `${hidden} shown in ${line}`);
    await context.close();
  });
});
