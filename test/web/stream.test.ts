// A stream in the web console (issue #36), in headless Chromium: the page shows the configuration
// without the key, starts recording with its button, shows where to publish, follows the live status
// while Debian's ffmpeg publishes a test pattern on loopback, shows the latest still and links to the
// recorded artifacts, and stops with its button.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, newPerson, probe, signIn } from '../helpers/console.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { publish } from '../streams/publisher.js';

describe('a stream in the web console', () => {
  let platform: TestPlatform;
  let browser: Browser;

  before(async () => {
    platform = await startPlatform({ STREAM_PORTS: '23935-23960' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('starts, shows what is recorded as it is, and stops', async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Cameras' })).body.id as string;
    const key = randomBytes(16).toString('hex');
    const secret = (await api.post('/secrets', { name: 'camera key', value: key })).body.id as string;
    const created = await api.post('/artifacts', {
      title: 'Lobby camera',
      content_type: 'application/vnd.platform.stream+json',
      content: JSON.stringify({
        description: probe,
        source: { mode: 'push' },
        key_secret_id: secret,
        record: { segments: { seconds: 2 }, stills: { every_seconds: 1 }, metadata: true },
      }),
      collection_id: ws,
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;

    const { context, page, dialogs } = await consolePage(browser);
    await signIn(page, platform, person, `/console/artifacts/${id}`);
    await page.getByTestId('stream-state').getByText('Not started').waitFor();
    await page.getByText(probe, { exact: true }).waitFor();
    await page.getByText(/keeps segments of about 2 s/).waitFor();

    await page.getByRole('button', { name: 'Start recording' }).click();
    await page.getByTestId('stream-state').getByText('Listening for a publisher').waitFor();
    const ingest = (await page.getByTestId('stream-ingest-url').textContent())!;
    assert.match(ingest, /^rtmp:\/\/127\.0\.0\.1:239\d\d\/live$/);
    assert.ok(!(await page.content()).includes(key), 'the key is never on the page');

    const published = await publish(`${ingest}/${key}`, 5);
    assert.equal(published.code, 0, published.stderr);
    await page
      .getByTestId('stream-counts')
      .getByText(/1 takes, [2-9] segments, \d+ stills, 1 metadata/)
      .waitFor();
    await page.getByRole('img', { name: 'The latest still' }).waitFor();
    const stills = page.getByRole('list', { name: 'Stills' });
    const first = stills.getByRole('link', { name: 'Still 1', exact: true });
    assert.match((await first.getAttribute('href'))!, /^\/console\/artifacts\/[0-9a-f-]{36}$/);
    await page.getByRole('list', { name: 'Segments' }).getByRole('link', { name: 'Segment 1', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Stop recording' }).click();
    await page.getByTestId('stream-state').getByText('Ended').waitFor();
    await page.getByRole('button', { name: 'Start recording' }).waitFor();
    assert.deepEqual(dialogs, [], 'markup in the description stays text');
    await context.close();
  });
});
