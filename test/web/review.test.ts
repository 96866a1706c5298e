// The reviewer's path in the web console (issue #20), in headless Chromium: a person signs in, finds
// the commit awaiting their approval, opens it (new and modified items, the unified diff as text),
// approves it with a comment using the keyboard and watches it become committed; another commit is
// rejected with a comment. An artifact title carrying markup stays text.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { consolePage, draft, newPerson, probe, signIn } from '../helpers/console.js';
import { eventually } from '../helpers/http.js';
import { requestCommit } from '../helpers/commit.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

/** Signs in through the console and the platform's own sign-in page, starting from `path`. */

describe('reviewing commits in the web console', () => {
  let platform: TestPlatform;
  let browser: Browser;

  before(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('lists the commit awaiting approval, shows its items and diff, approves it with the keyboard, and it commits', async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Release drafts' })).body.id as string;
    const col = (await api.post('/collections', { name: 'Published notes' })).body.id as string;
    // A first commit makes version 1 of Alpha; then Alpha changes and a new draft joins it.
    const alpha = await draft(api, ws, 'Alpha', '# Alpha\n\nfirst text\n');
    const first = await requestCommit(api, ws, col, 'first');
    assert.equal((await api.post(`/commits/${first}/approve`, {})).status, 200);
    await eventually(async () => (await api.get(`/commits/${first}`)).body.state === 'committed', 30_000, 'first commit');
    assert.equal((await api.patch(`/artifacts/${alpha}`, { content: '# Alpha\n\nsecond text\n' })).status, 200);
    await draft(api, ws, probe, `# ${probe}\n\n<script>alert(2)</script>\n`);
    const id = await requestCommit(api, ws, col, 'Release notes v7');

    const { context, page, dialogs } = await consolePage(browser);
    await signIn(page, platform, person, '/console/');

    const list = page.getByRole('list', { name: 'Commits awaiting approval' });
    await list.waitFor();
    const entry = list.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Release notes v7' }) });
    // Names, not ids, once looked up: each is looked up on its own, so wait for both.
    await entry.getByText('Published notes').waitFor();
    await entry.getByText('Release drafts').waitFor();
    await entry.getByTestId('name-people').getByText('you', { exact: true }).waitFor();
    const entryText = await entry.innerText();
    assert.match(entryText, /Release drafts/);
    assert.match(entryText, /Requested by\s+you/);
    assert.match(entryText, /1 new, 1 modified, 0 unchanged/);

    await entry.getByRole('link', { name: 'Release notes v7' }).click();
    await page.waitForURL(`${platform.url}/console/commits/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Release notes v7' }).waitFor();
    assert.equal(await page.getByTestId('commit-state').textContent(), 'awaiting approval');

    const items = page.getByRole('list', { name: 'Items' });
    await items.waitFor();
    const modified = items.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Alpha', exact: true }) });
    assert.match(await modified.innerText(), /version 1 becomes version 2/);
    const diff = modified.getByLabel('Changes to Alpha');
    assert.equal(await diff.locator('.diff-del', { hasText: 'first text' }).textContent(), '-first text\n');
    assert.equal(await diff.locator('.diff-add', { hasText: 'second text' }).textContent(), '+second text\n');
    const added = items.getByRole('listitem').filter({ has: page.getByRole('heading', { name: probe, exact: true }) });
    assert.match(await added.innerText(), /becomes version 1/);

    // The probe is text: no element made from it, no script ran.
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.locator('main script').count(), 0);
    assert.deepEqual(dialogs, []);
    await screenshot(page, 'commit-review');

    // The accessibility tree names the decision's controls.
    const form = page.getByRole('form', { name: 'Your decision' });
    const tree = await form.ariaSnapshot();
    assert.match(tree, /textbox "Comment \(optional to approve, required to reject\)"/);
    assert.match(tree, /button "Approve"/);
    assert.match(tree, /button "Reject"/);

    // Keyboard only: the comment, Tab to Approve, Enter.
    await page.getByLabel(/^Comment/).focus();
    await page.keyboard.type('Looks right');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Approve');
    await page.keyboard.press('Enter');
    await page.getByTestId('commit-state').getByText('committed', { exact: true }).waitFor({ timeout: 30_000 });
    await page.locator('.facts dd').filter({ hasText: /^you,/ }).waitFor();
    assert.match(await page.locator('.facts').innerText(), /Approved by\s+you,/);
    await page.getByText('Looks right').waitFor();
    await page.getByText('2/2 applied').waitFor();
    // Each version written by its artifact's title, a link to it (issue #37).
    await page.getByRole('list', { name: 'Versions written' }).getByRole('link', { name: 'Alpha', exact: true }).waitFor();

    const committed = (await api.get(`/commits/${id}`)).body;
    assert.equal(committed.state, 'committed');
    assert.equal(committed.decision.comment, 'Looks right');
    const versions = new Map<number, number>();
    for (const r of committed.results as { artifact_id: string; version: number }[]) {
      const reply = await api.get(`/artifacts/${r.artifact_id}/versions/${r.version}`);
      assert.equal(reply.status, 200, reply.text);
      versions.set(r.version, (versions.get(r.version) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(versions), { 1: 1, 2: 1 });

    // The collection's page, reached through the console's own links, lists the new version.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('list', { name: 'Your collections' }).getByRole('link', { name: 'Published notes' }).click();
    const published = page.getByRole('list', { name: 'Artifacts' }).getByRole('listitem').filter({ hasText: 'Alpha' });
    await published.getByText('version 2').waitFor();
    assert.match(await published.innerText(), /committed · version 2/);
    assert.deepEqual(dialogs, []);
    await context.close();
  });

  it('rejects a commit with a comment, which is required', async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Drafts' })).body.id as string;
    const col = (await api.post('/collections', { name: 'Archive' })).body.id as string;
    await draft(api, ws, 'Gamma', '# Gamma\n');
    await draft(api, ws, 'Delta', '# Delta\n');
    const id = await requestCommit(api, ws, col, 'Not ready');

    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    // Straight to the commit: sign-in comes back to it.
    await signIn(page, platform, person, `/console/commits/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Not ready' }).waitFor();
    // The items render once the commit's preview is read: wait for them before counting.
    const items = page.getByRole('list', { name: 'Items' }).getByRole('listitem');
    await items.filter({ hasText: 'Delta' }).waitFor();
    await items.filter({ hasText: 'Gamma' }).waitFor();
    assert.equal(await items.count(), 2);

    await page.getByRole('button', { name: 'Reject' }).click();
    await page
      .getByRole('alert')
      .getByText(/a comment is required/)
      .waitFor();
    assert.equal((await api.get(`/commits/${id}`)).body.state, 'awaiting_approval', 'nothing was sent');

    await page.getByLabel(/^Comment/).fill('Gamma is not finished');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByTestId('commit-state').getByText('rejected', { exact: true }).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0, 'no decision once decided');

    const rejected = await eventually(async () => {
      const body = (await api.get(`/commits/${id}`)).body;
      return body.state === 'rejected' ? body : null;
    });
    assert.equal(rejected.decision.comment, 'Gamma is not finished');
    assert.equal(rejected.results, null);
    await context.close();
  });

  it('says a stale preview must be refreshed when its approval is refused (409 commit-stale), not a generic error', async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Drafts' })).body.id as string;
    const col = (await api.post('/collections', { name: 'Handbook' })).body.id as string;
    const doc = await draft(api, ws, 'Epsilon', 'version one');
    const older = await requestCommit(api, ws, col, 'Older preview');
    assert.equal((await api.patch(`/artifacts/${doc}`, { content: 'version two, newer' })).status, 200);
    const newer = await requestCommit(api, ws, col, 'Newer preview');
    assert.equal((await api.post(`/commits/${newer}/approve`, {})).status, 200);
    await eventually(async () => (await api.get(`/commits/${newer}`)).body.state === 'committed', 30_000, 'newer committed');

    const { context, page } = await consolePage(browser);
    await signIn(page, platform, person, `/console/commits/${older}`);
    await page.getByRole('heading', { level: 1, name: 'Older preview' }).waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    const notice = page.getByTestId('commit-stale');
    await notice.waitFor();
    assert.equal(await notice.getAttribute('role'), 'alert');
    const text = await notice.innerText();
    assert.match(text, /This preview is stale/);
    assert.match(text, /Request a new commit/);
    assert.match(text, /Epsilon: previewed against none \(new\), the collection now has version 1/);
    assert.equal(await page.getByRole('button', { name: 'Approve' }).isDisabled(), true, 'a stale preview cannot be approved');
    assert.equal(await page.getByTestId('commit-state').textContent(), 'awaiting approval');
    assert.equal((await api.get(`/commits/${older}`)).body.state, 'awaiting_approval', 'nothing changed');
    // Whoever opens the commit later is told before pressing anything.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Older preview' }).waitFor();
    await page
      .getByTestId('commit-stale')
      .getByText(/This preview is stale/)
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Approve' }).isDisabled(), true);
    assert.equal(await page.getByRole('button', { name: 'Reject' }).isDisabled(), false, 'it can still be rejected');
    await context.close();
  });
});
