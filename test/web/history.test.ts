// An artifact's history in the console (issue #37), in headless Chromium: a collection artifact
// committed twice lists both versions, newest first, each with who requested and approved it by name
// (as text, not JSON), and shows the changes between them as the commit page's coloured diff; two
// versions can be compared; a draft's revisions show who wrote each and through what, with diffs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, draft, newPerson, signIn, type Person } from '../helpers/console.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

/** Commits the workspace's drafts into the collection and waits until it is committed. */
async function commit(api: Api, ws: string, col: string): Promise<{ artifact_id: string; version: number }[]> {
  const requested = await api.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'history' });
  assert.equal(requested.status, 202, requested.text);
  const id = requested.body.id as string;
  await eventually(async () => (await api.get(`/commits/${id}`)).body.state === 'awaiting_approval', 30_000, 'awaiting approval');
  assert.equal((await api.post(`/commits/${id}/approve`, {})).status, 200);
  return eventually(async () => {
    const c = (await api.get(`/commits/${id}`)).body;
    return c.state === 'committed' ? c.results : null;
  }, 30_000);
}

describe("an artifact's history in the console", () => {
  let platform: TestPlatform;
  let browser: Browser;
  let person: Person;

  before(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    person = await newPerson(platform);
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  it("shows a collection artifact's versions with names and the diff between them", async () => {
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Tide drafts' })).body.id as string;
    const col = (await api.post('/collections', { name: 'Tide tables' })).body.id as string;
    const doc = await draft(api, ws, 'Neap tides', 'Low water at dawn.\nThe harbour is shallow.\n');
    const [first] = await commit(api, ws, col);
    const edited = await api.patch(`/artifacts/${doc}`, {
      title: 'Neap tides (revised)',
      content: 'Low water at dusk.\nThe harbour is shallow.\n',
    });
    assert.equal(edited.status, 200, edited.text);
    const [second] = await commit(api, ws, col);
    assert.equal(second!.artifact_id, first!.artifact_id);
    assert.equal(second!.version, 2);
    const id = first!.artifact_id;

    const { context, page } = await consolePage(browser);
    await signIn(page, platform, person, `/console/artifacts/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Neap tides (revised)' }).waitFor();
    const history = page.getByRole('region', { name: 'History' });
    const entries = history.getByTestId('history-entry');
    await entries.nth(1).waitFor();
    assert.equal(await entries.count(), 2);
    await page.waitForFunction(() => ![...document.querySelectorAll('.history .name')].some((n) => n.textContent === '…'));
    const newest = entries.nth(0);
    assert.match(await newest.getByRole('heading').innerText(), /^Version 2 · Neap tides \(revised\)/);
    const who = await newest.locator('.history-who').innerText();
    assert.match(who, /Committed .* in a commit, requested by you, approved by you; drafted by you/);
    assert.ok(!who.includes('{') && !/[0-9a-f]{8}-[0-9a-f]{4}-/.test(who), `provenance as text, without ids: ${who}`);
    assert.match(await entries.nth(1).getByRole('heading').innerText(), /^Version 1 · Neap tides$/);

    // The changes from version 1: the title, and the content as the commit page's coloured diff.
    await newest.getByRole('button', { name: 'Show changes from version 1' }).click();
    const changes = newest.getByTestId('history-changes');
    await changes.locator('pre.diff').waitFor();
    assert.match(await changes.innerText(), /Title: “Neap tides” → “Neap tides \(revised\)”/);
    const diff = changes.locator('pre.diff');
    assert.equal(await diff.getAttribute('aria-label'), 'Changes from version 1 to version 2');
    assert.deepEqual(await diff.locator('.diff-del').allTextContents(), ['-Low water at dawn.\n']);
    assert.deepEqual(await diff.locator('.diff-add').allTextContents(), ['+Low water at dusk.\n']);
    assert.ok((await diff.locator('.diff-ctx').allTextContents()).some((l) => l.includes('The harbour is shallow.')));
    const added = await diff.locator('.diff-add').evaluate((el) => getComputedStyle(el).backgroundColor);
    const removed = await diff.locator('.diff-del').evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.notEqual(added, removed, 'additions and removals are coloured apart');
    assert.notEqual(added, 'rgba(0, 0, 0, 0)');

    // Compare any two from the form.
    await history.getByLabel('From version', { exact: true }).selectOption('1');
    await history.getByLabel('to version', { exact: true }).selectOption('2');
    await history.getByRole('button', { name: 'Compare' }).click();
    const compared = history.getByTestId('compared');
    await compared.locator('pre.diff').waitFor();
    assert.deepEqual(await compared.locator('.diff-add').allTextContents(), ['+Low water at dusk.\n']);
    await context.close();
  });

  it("shows a draft's revisions with who wrote each and the diff", async () => {
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Revisions' })).body.id as string;
    const doc = (
      await api.post('/artifacts', {
        title: 'Settings',
        content_type: 'application/json',
        content: '{"depth":12,"piers":["north"]}',
        collection_id: ws,
      })
    ).body.id as string;
    const edited = await api.patch(`/artifacts/${doc}`, { content: '{"depth":14,"piers":["north"]}' });
    assert.equal(edited.status, 200, edited.text);

    const { context, page } = await consolePage(browser);
    await signIn(page, platform, person, `/console/artifacts/${doc}`);
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    const history = page.getByRole('region', { name: 'History' });
    const entries = history.getByTestId('history-entry');
    await entries.nth(1).waitFor();
    await page.waitForFunction(() => ![...document.querySelectorAll('.history .name')].some((n) => n.textContent === '…'));
    assert.match(await entries.nth(0).getByRole('heading').innerText(), /^Revision 2/);
    assert.match(await entries.nth(0).locator('.history-who').innerText(), /^Written by you, over the REST API, /);
    await entries.nth(0).getByRole('button', { name: 'Show changes from revision 1' }).click();
    const diff = entries.nth(0).locator('pre.diff');
    await diff.waitFor();
    // JSON is compared pretty-printed: the one changed field is the one changed line.
    assert.deepEqual(await diff.locator('.diff-del').allTextContents(), ['-  "depth": 12,\n']);
    assert.deepEqual(await diff.locator('.diff-add').allTextContents(), ['+  "depth": 14,\n']);
    await context.close();
  });
});
