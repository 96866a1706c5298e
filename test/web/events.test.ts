// A workspace's events in the web console (issue #20), in headless Chromium: the workspace page lists
// the latest events, newest first, then shows an artifact created through the API as it is recorded
// (announced politely), and after the server drops the stream it reconnects and misses nothing, with
// no event shown twice. A title carrying markup stays text. More events than a page (issue #37): the
// newest page is live, "Older" and "Newer" move through pages whose cursors the address keeps (back,
// forward, a refused cursor's problem detail), and events that arrive live leave no gap before the
// older pages.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { eventStreams } from '../../src/api/routes/event-stream.js';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, draft, newPerson, probe, signIn } from '../helpers/console.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

describe("a workspace's events in the web console", () => {
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

  it('shows the recorded events, then a new one live, and resumes after a drop without duplicates', async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Field notes' })).body.id as string;
    await draft(api, ws, probe, '# probe');
    await eventually(async () => (await api.get(`/workspaces/${ws}/events`)).body.items.length === 1, 30_000, 'the first event');

    const { context, page, dialogs } = await consolePage(browser);
    await signIn(page, platform, person, `/console/workspaces/${ws}`);

    const list = page.getByRole('list', { name: 'Workspace events, newest first' });
    const items = list.getByRole('listitem');
    await list.getByRole('link', { name: probe }).waitFor();
    await page.getByTestId('events-status').getByText('Live').waitFor();

    const fresh = await draft(api, ws, 'Fresh notes', '# fresh');
    const link = list.getByRole('link', { name: 'Fresh notes' });
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), `/console/artifacts/${fresh}`);
    assert.match(await items.first().innerText(), /Artifact created\s+Fresh notes\s+by you/);
    await page.getByTestId('events-announcement').getByText('New event: artifact created').waitFor({ state: 'attached' });
    assert.equal(await page.locator('[aria-live="polite"]').count(), 1);

    // The server drops every stream; the page reconnects with Last-Event-ID and gets what it missed.
    eventStreams(platform.services).stopAll();
    const later = await draft(api, ws, 'After the drop', '# later');
    await list.getByRole('link', { name: 'After the drop' }).waitFor();
    assert.equal(await link.getAttribute('href'), `/console/artifacts/${fresh}`);
    await eventually(async () => eventStreams(platform.services).size === 1, 30_000, 'the page streaming again');
    await page.getByTestId('events-status').getByText('Live').waitFor();
    const hrefs = await list.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    assert.equal(hrefs[0], `/console/artifacts/${later}`, 'newest first');
    assert.equal(hrefs.length, 3, `each event once: ${hrefs.join(', ')}`);
    assert.equal(await list.getByRole('link', { name: probe }).count(), 1, 'the markup is the link text');
    assert.deepEqual(dialogs, []);

    await context.close();
    await eventually(async () => eventStreams(platform.services).size === 0, 30_000, 'the closed page frees its stream');
  });

  it('pages through more events than a page: Older and Newer, the cursors in the address, the newest page live', async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Busy workspace' })).body.id as string;
    const total = 120;
    for (let i = 0; i < total; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, total - i) }, (_, k) => draft(api, ws, `Note ${i + k + 1}`, `# note ${i + k + 1}`)),
      );
    }
    const pages = await eventually(
      async () => {
        const all = await eventPages(api, ws);
        return all.flatMap((p) => p.items).length === total ? all : null;
      },
      60_000,
      `${total} events recorded`,
    );
    assert.deepEqual(
      pages.map((p) => p.items.length),
      [50, 50, 20],
    );

    const { context, page } = await consolePage(browser);
    await signIn(page, platform, person, `/console/workspaces/${ws}`);
    const live = page.getByRole('list', { name: 'Workspace events, newest first', exact: true });
    const older = page.getByRole('list', { name: 'Older workspace events, newest first' });
    const hrefs = (list: typeof live) => list.locator('li > a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    const expected = (items: { artifact_id: string }[]) => items.map((e) => `/console/artifacts/${e.artifact_id}`);
    await page.getByTestId('events-status').getByText('Live').waitFor();
    assert.deepEqual(await hrefs(live), expected(pages[0]!.items));
    const pager = page.getByRole('navigation', { name: 'Event pages' });
    assert.equal(await pager.getByRole('link', { name: 'Newer events' }).count(), 0);

    // Live: a new event joins the top; the older pages still start right after the first page read.
    const fresh = await draft(api, ws, 'Arrived live', '# live');
    await live.getByRole('link', { name: 'Arrived live' }).waitFor();
    assert.equal((await hrefs(live))[0], `/console/artifacts/${fresh}`);

    const workspacePath = `${platform.url}/console/workspaces/${ws}`;
    await pager.getByRole('link', { name: 'Older events' }).click();
    await page.waitForURL(`${workspacePath}?events=${pages[0]!.next_cursor}`);
    await older.waitFor();
    assert.deepEqual(await hrefs(older), expected(pages[1]!.items), 'the second page, with no gap');
    assert.equal(await live.count(), 0, 'an older page is not live');
    assert.equal(await page.getByTestId('events-status').count(), 0);
    assert.match(await page.getByTestId('events-page').innerText(), /page 2/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'events-title', 'the focus moves to the events');

    await pager.getByRole('link', { name: 'Older events' }).click();
    await page.waitForURL(`${workspacePath}?events=${pages[0]!.next_cursor}.${pages[1]!.next_cursor}`);
    await eventually(
      async () => JSON.stringify(await hrefs(older)) === JSON.stringify(expected(pages[2]!.items)),
      15_000,
      'the third page',
    );
    assert.equal(await pager.getByRole('link', { name: 'Older events' }).count(), 0, 'the last page has no older one');

    await pager.getByRole('link', { name: 'Newer events' }).click();
    await page.waitForURL(`${workspacePath}?events=${pages[0]!.next_cursor}`);
    await eventually(
      async () => JSON.stringify(await hrefs(older)) === JSON.stringify(expected(pages[1]!.items)),
      15_000,
      'the second page again',
    );

    // Back and forward move through the pages as they were visited.
    await page.goBack();
    await page.waitForURL(`${workspacePath}?events=${pages[0]!.next_cursor}.${pages[1]!.next_cursor}`);
    await eventually(
      async () => JSON.stringify(await hrefs(older)) === JSON.stringify(expected(pages[2]!.items)),
      15_000,
      'back: the third page',
    );
    await page.goForward();
    await eventually(
      async () => JSON.stringify(await hrefs(older)) === JSON.stringify(expected(pages[1]!.items)),
      15_000,
      'forward: the second page',
    );

    // A cursor the API did not issue: its problem detail, and the way back.
    await page.evaluate((to) => {
      history.pushState(null, '', to);
      dispatchEvent(new PopStateEvent('popstate'));
    }, `/console/workspaces/${ws}?events=bogus`);
    const refused = await api.get(`/workspaces/${ws}/events?cursor=bogus`);
    assert.equal(refused.status, 400);
    await page
      .locator('.events')
      .getByRole('alert')
      .getByText(refused.body.detail as string)
      .waitFor();

    await pager.getByRole('link', { name: 'Newer events' }).click();
    await page.waitForURL(workspacePath);
    await page.getByTestId('events-status').getByText('Live').waitFor();
    assert.equal((await hrefs(live))[0], `/console/artifacts/${fresh}`);
    await context.close();
  });
});

/** Every page of the workspace's events from the API, newest first. */
async function eventPages(api: Api, ws: string) {
  const pages: { items: { artifact_id: string }[]; next_cursor: string | null }[] = [];
  let cursor: string | null = null;
  do {
    const reply = await api.get(`/workspaces/${ws}/events?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(reply.status, 200, reply.text);
    pages.push(reply.body);
    cursor = reply.body.next_cursor;
  } while (cursor);
  return pages;
}
