// A view in the web console (issue #36), in headless Chromium: the view's page lists its results as
// links to the artifacts, then, without a reload, shows an artifact created through the API that
// matches the filter (and not one that does not), follows an edit of the view's own filter, and keeps
// markup in a title as text. A source the person cannot read is named as such.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { eventStreams } from '../../src/api/routes/event-stream.js';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, newPerson, probe, signIn } from '../helpers/console.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const viewType = 'application/vnd.platform.view+json';

async function tagged(api: Api, ws: string, title: string, tags: string[]): Promise<string> {
  const reply = await api.post('/artifacts', {
    title,
    content_type: 'text/markdown',
    content: `# ${title}`,
    context: { tags },
    collection_id: ws,
  });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

describe('a view in the web console', () => {
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

  it('lists the results as links and updates live when a matching artifact arrives or the filter changes', async () => {
    const person = await newPerson(platform);
    const stranger = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Reading list' })).body.id as string;
    const hidden = (await stranger.api.post('/workspaces', { name: 'Not yours' })).body.id as string;
    const first = await tagged(api, ws, probe, ['to-read']);
    await tagged(api, ws, 'Done already', ['read']);
    const content = (extra: object = {}) =>
      JSON.stringify({
        description: 'Everything still to read',
        sources: { workspaces: [ws, hidden] },
        filter: { tags: ['to-read'] },
        ...extra,
      });
    const created = await api.post('/artifacts', { title: 'To read', content_type: viewType, content: content(), collection_id: ws });
    assert.equal(created.status, 201, created.text);
    const viewId = created.body.id as string;

    const { context, page, dialogs } = await consolePage(browser);
    await signIn(page, platform, person, `/console/artifacts/${viewId}`);

    const list = page.getByRole('list', { name: 'Artifacts this view matches' });
    const link = list.getByRole('link', { name: probe });
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), `/console/artifacts/${first}`);
    assert.equal(await list.getByRole('listitem').count(), 1, 'only what the filter matches');
    await page.getByTestId('view-status').getByText('Live').waitFor();
    await page.getByText('Everything still to read', { exact: true }).waitFor();
    await page.getByTestId('view-sources').getByText('a workspace you cannot read').waitFor();

    // Created through the API: the matching one appears without a reload, the other never does.
    await tagged(api, ws, 'Not for the list', ['read']);
    const fresh = await tagged(api, ws, 'Fresh paper', ['to-read']);
    const freshLink = list.getByRole('link', { name: 'Fresh paper' });
    await freshLink.waitFor();
    assert.equal(await freshLink.getAttribute('href'), `/console/artifacts/${fresh}`);
    assert.equal(await list.getByRole('link', { name: 'Not for the list' }).count(), 0);
    await page.getByTestId('view-announcement').getByText('Results updated: 2 artifacts').waitFor({ state: 'attached' });

    // The view's own filter edited: the page follows it.
    const edit = await api.patch(`/artifacts/${viewId}`, {
      content: content({ description: 'Read and filed', filter: { tags: ['read'] }, sort: 'title_asc' }),
    });
    assert.equal(edit.status, 200, edit.text);
    await list.getByRole('link', { name: 'Done already' }).waitFor();
    // …its description and the filter shown below follow the edit too, without a reload.
    await page.getByText('Read and filed', { exact: true }).waitFor();
    await page
      .getByTestId('view-filter')
      .getByText(/"title_asc"/)
      .waitFor({ state: 'attached' });
    await list.getByRole('link', { name: 'Not for the list' }).waitFor();
    assert.equal(await list.getByRole('link', { name: 'Fresh paper' }).count(), 0);
    assert.deepEqual(dialogs, [], 'markup in a title stays text');

    await context.close();
    await eventually(async () => eventStreams(platform.services).size === 0, 30_000, 'the closed page frees its stream');
  });
});
