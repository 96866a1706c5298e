// The console on a phone (issue #37), in headless Chromium at 375×812: the commit page, whose diff has
// lines far wider than the screen (prose, and one unbroken token), the search page with its results
// and the workspace page with its events all fit the width: the page never scrolls sideways, and the
// diff wraps its lines rather than scrolling within itself.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { consolePage, draft, newPerson, signIn } from '../helpers/console.js';
import { requestCommit } from '../helpers/commit.js';
import { eventually } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const phone = { viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

const prose = 'The north pier was surveyed at low tide and every bollard was measured against the harbour chart of the previous year';
const token = `https://example.org/${'a1b2c3d4'.repeat(30)}`;

/** Fails naming what sticks out when the page is wider than its window. */
async function fitsTheWidth(page: Page, what: string): Promise<void> {
  const { scrollWidth, clientWidth, wide } = await page.evaluate(() => {
    const root = document.scrollingElement!;
    const wide = [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > root.clientWidth + 0.5)
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} (${Math.round(e.getBoundingClientRect().right)} px)`);
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide };
  });
  assert.equal(clientWidth, 375, 'the window is a phone’s');
  assert.ok(scrollWidth <= clientWidth, `${what}: ${scrollWidth} px wide in ${clientWidth}: ${wide.join(', ')}`);
}

describe('the console on a phone', () => {
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

  it('fits 375 px: the commit page’s diff wraps its long lines, the search and events pages fit', async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Harbour drafts' })).body.id as string;
    const col = (await api.post('/collections', { name: 'Harbour records' })).body.id as string;
    const survey = await draft(api, ws, 'Pier survey', `# Pier survey\n\n${prose}.\n\nshort line\n`);
    const first = await requestCommit(api, ws, col, 'first');
    assert.equal((await api.post(`/commits/${first}/approve`, {})).status, 200);
    await eventually(async () => (await api.get(`/commits/${first}`)).body.state === 'committed', 30_000, 'first commit');
    const changed = `# Pier survey\n\n${prose}, and again in the spring with the same chart.\n\nshort line\n\nSee ${token}\n`;
    assert.equal((await api.patch(`/artifacts/${survey}`, { content: changed })).status, 200);
    const id = await requestCommit(api, ws, col, 'Survey, measured again in the spring');

    const { context, page, dialogs } = await consolePage(browser, phone);
    await signIn(page, platform, person, `/console/commits/${id}`);
    const diff = page.getByLabel('Changes to Pier survey');
    await diff.locator('.diff-add', { hasText: 'spring' }).waitFor();
    await fitsTheWidth(page, 'the commit page');
    // The diff itself wraps: no sideways scroll inside it, and its long added line takes several lines.
    const box = await diff.evaluate((pre) => ({ scroll: pre.scrollWidth, client: pre.clientWidth }));
    assert.ok(box.scroll <= box.client, `the diff scrolls sideways: ${box.scroll} px in ${box.client}`);
    const lines = await diff.locator('.diff-add', { hasText: 'spring' }).evaluate((span) => {
      const style = getComputedStyle(span);
      return span.getBoundingClientRect().height / parseFloat(style.lineHeight);
    });
    assert.ok(lines >= 2, `the long line wraps (${lines.toFixed(1)} lines)`);
    await screenshot(page, 'phone-commit');

    // The search page, with results.
    await page.evaluate(() => {
      history.pushState(null, '', '/console/search?q=pier+survey');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    const results = page.getByRole('list', { name: 'Search results' });
    await results.getByRole('link', { name: 'Pier survey' }).first().waitFor();
    await results.getByTestId('snippet').first().waitFor();
    await results.locator('summary').first().click();
    await fitsTheWidth(page, 'the search page');
    await screenshot(page, 'phone-search');

    // The workspace page with its events, and an older page of them.
    for (let i = 0; i < 51; i += 17) {
      await Promise.all(Array.from({ length: 17 }, (_, k) => draft(api, ws, `Tide reading ${i + k + 1} at the north pier`, '# reading')));
    }
    await eventually(async () => (await api.get(`/workspaces/${ws}/events?limit=60`)).body.items.length >= 53, 30_000, 'the events');
    await page.evaluate((to) => {
      history.pushState(null, '', to);
      dispatchEvent(new PopStateEvent('popstate'));
    }, `/console/workspaces/${ws}`);
    await page.getByTestId('events-status').getByText('Live').waitFor();
    await fitsTheWidth(page, 'the workspace page');
    await page.getByRole('navigation', { name: 'Event pages' }).getByRole('link', { name: 'Older events' }).click();
    await page.getByRole('list', { name: 'Older workspace events, newest first' }).waitFor();
    await fitsTheWidth(page, 'an older page of events');
    assert.deepEqual(dialogs, []);
    await context.close();
  });
});
