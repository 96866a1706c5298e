// A workspace's events in the web console (issue #20), in headless Chromium: the workspace page lists
// the latest events, newest first, then shows an artifact created through the API as it is recorded
// (announced politely), and after the server drops the stream it reconnects and misses nothing, with
// no event shown twice. A title carrying markup stays text.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { eventStreams } from '../../src/api/routes/event-stream.js';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, draft, newPerson, probe, signIn } from '../helpers/console.js';
import { eventually } from '../helpers/http.js';
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
});
