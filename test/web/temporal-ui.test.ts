// The operator's path to decoded payloads (issue #30), in headless Chromium against the real Temporal
// Web UI: a dev server of this file's own with its UI started as `npm start` starts it (with
// `--ui-codec-endpoint` at the platform's /codec/session), the platform on it, a workflow whose input the
// platform's codec sealed. The administrator signs in to the console, opens the workflow in the UI, and
// sees the input decoded, with no "Codec Server could not connect" banner and no setting to change: the
// UI is served through temporal-dev/ui-proxy.ts, which turns on its "include credentials" for codec calls.
// A bulk import's run (issue #33) is listed by its RunKind, and its page shows its summary and current
// details (done, created, skipped, failed), both decoded.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { freePort, startEngines, type Engines } from '../../temporal-dev/engines.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { consolePage, signIn } from '../helpers/console.js';
import { Api, eventually } from '../helpers/http.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';

const marker = `ui-marker-${randomBytes(6).toString('hex')}`;

describe('the Temporal Web UI decodes payloads through the codec server', () => {
  let engines: Engines;
  let platform: TestPlatform;
  let browser: Browser;
  let ui: string;
  let api: string;
  let workflowId: string;
  const codecCalls: { url: string; status: number }[] = [];

  before(async () => {
    const apiPort = await freePort();
    const uiPort = await freePort();
    // localhost, as npm start: the UI and the API on the same site, so the UI's call carries the session cookie.
    api = `http://localhost:${apiPort}`;
    ui = `http://localhost:${uiPort}`;
    const stateDir = mkdtempSync(join(process.env.TEST_STATE_DIR!, 'temporal-ui-'));
    chmodSync(stateDir, 0o711);
    engines = await startEngines({
      devDir: resolve(process.env.PLATFORM_DEV_DIR ?? '.dev'),
      stateDir,
      temporalPort: await freePort(),
      temporalUiPort: uiPort,
      mongoPort: 0,
      startTemporal: true,
      startMongo: false,
      log: () => undefined,
      ephemeral: true,
      uiCodecEndpoint: `${api}/codec/session`,
    });
    platform = await startPlatform(
      { PORT: String(apiPort), TEMPORAL_ADDRESS: engines.temporalAddress!, CODEC_ALLOWED_ORIGINS: ui },
      { worker: false },
    );
    // A workflow whose input the platform's client seals: no worker runs it, the UI shows its input.
    workflowId = `ui-codec-${randomBytes(4).toString('hex')}`;
    await platform.services.temporal.workflow.start('uiCodecProbe', {
      taskQueue: `nobody-${workflowId}`,
      workflowId,
      args: [{ note: marker }],
    });
    const history = await platform.services.temporal.workflow.getHandle(workflowId).fetchHistory();
    const raw = JSON.stringify(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input);
    assert.ok(!Buffer.from(raw).includes(marker) && raw.length > 0, 'the input is sealed in Temporal');
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
    await engines?.stop();
  });

  async function signedInPage(): Promise<Page> {
    const { page } = await consolePage(browser);
    page.on('response', (r) => {
      if (r.url().includes('/codec/')) codecCalls.push({ url: r.url(), status: r.status() });
    });
    // Signed in to the console on the API's host name (localhost), as the README tells.
    const person = { email: adminEmail, password: adminPassword, api: new Api(api) };
    await signIn(page, { ...platform, url: api }, person, '/console/');
    return page;
  }

  it('shows the workflow input decoded for a signed-in administrator, with no setting to change', async () => {
    const page = await signedInPage();
    const workflowPage = `${ui}/namespaces/${platform.config.TEMPORAL_NAMESPACE}/workflows/${workflowId}`;
    await page.goto(workflowPage);
    const input = page.getByRole('textbox', { name: 'Input' });
    const banner = page.getByRole('alert').filter({ hasText: 'Codec Server could not connect' });
    await input
      .filter({ hasText: marker })
      .waitFor()
      .catch((err: Error) => {
        throw new Error(`the input was not decoded; the UI's codec calls: ${JSON.stringify(codecCalls)}`, { cause: err });
      });
    await screenshot(page, 'temporal-ui-decoded');
    assert.equal(await banner.count(), 0, 'no "could not connect" banner');
    assert.equal(await page.getByRole('button', { name: 'Codec Server could not connect' }).count(), 0);
    const decoded = codecCalls.filter((c) => c.status === 200);
    assert.ok(decoded.length > 0, JSON.stringify(codecCalls));
    // What the UI asks: /decode with its query, which the codec takes.
    assert.ok(
      decoded.some(
        (c) => new URL(c.url).pathname === '/codec/session/decode' && new URL(c.url).searchParams.get('preserveStorageRefs') === 'true',
      ),
      JSON.stringify(codecCalls),
    );
  });

  it('lists an import run by its RunKind and shows its summary and current details (decoded): completed, with its counts', async () => {
    // The import's workflow needs a worker (the one above needs none: it only has to exist).
    await platform.startWorker();
    const admin = await new Api(api).login(adminEmail, adminPassword);
    const ws = (await admin.post('/workspaces', { name: 'ui-import' })).body.id as string;
    const docs = [
      { key: 'a', title: 'First', content_type: 'text/markdown', content: '# First' },
      { key: 'b', title: 'Second', content_type: 'text/plain', content: 'second' },
      { key: 'c', title: '', content_type: 'text/plain', content: 'no title: a failed item' },
    ];
    const started = await admin.post(`/workspaces/${ws}/imports`, docs);
    assert.equal(started.status, 202, started.text);
    const imported = await eventually(
      async () => {
        const body = (await admin.get(`/imports/${started.body.id}`)).body;
        return body.state !== 'running' ? body : null;
      },
      60_000,
      'the import finished',
    );
    assert.equal(imported.state, 'completed');
    const importWorkflow = started.body.workflow_id as string;

    // The summary and the current details (the answer to the metadata query the UI sends, which the
    // worker answers) are sealed in Temporal: what the UI shows of them, it decoded through the codec.
    const handle = platform.services.temporal.workflow.getHandle(importWorkflow);
    const summary = (await handle.describe()).raw.executionConfig?.userMetadata?.summary;
    assert.ok(summary?.data?.length && !Buffer.from(summary.data).includes('Import 3 items'), 'the summary is sealed in Temporal');
    const metadata = await platform.services.temporal.workflowService.queryWorkflow({
      namespace: platform.config.TEMPORAL_NAMESPACE,
      execution: { workflowId: importWorkflow },
      query: { queryType: '__temporal_workflow_metadata' },
    });
    const answer = Buffer.concat((metadata.queryResult?.payloads ?? []).map((p) => Buffer.from(p.data ?? [])));
    assert.ok(answer.length > 0 && !answer.includes('3 of 3'), 'the current details are sealed in the query answer');
    const details = '3 of 3 items, 2 created, 0 skipped, 1 failed';

    const page = await signedInPage();
    const ns = platform.config.TEMPORAL_NAMESPACE;
    // Listed among the runs of kind "import" (the search attribute the platform sets), completed.
    await page.goto(`${ui}/namespaces/${ns}/workflows?query=${encodeURIComponent('RunKind="import"')}`);
    const row = page.getByRole('row').filter({ hasText: importWorkflow });
    await row.waitFor();
    assert.match(await row.innerText(), /COMPLETED[\s\S]*importArtifacts/i);

    // Its page, User Metadata: the summary and the current details, each rendered by the UI in a frame
    // of its own (the details' Markdown as elements).
    const before = codecCalls.length;
    await page.goto(`${ui}/namespaces/${ns}/workflows/${importWorkflow}`);
    await page.getByText('User Metadata', { exact: true }).click();
    await page.getByText('Current Details').first().waitFor();
    const shownIn = (text: string) =>
      eventually(
        async () => {
          for (const frame of page.frames()) {
            const body = await frame
              .locator('body')
              .innerText({ timeout: 1000 })
              .catch(() => '');
            if (frame !== page.mainFrame() && body.includes(text)) return frame;
          }
          return null;
        },
        30_000,
        `the UI shows "${text}" (codec calls: ${JSON.stringify(codecCalls)})`,
      );
    await shownIn(`Import 3 items into workspace ${ws}`);
    const current = await shownIn(details);
    assert.equal((await current.locator('body').innerText()).trim(), `completed: ${details}`);
    assert.equal(await current.locator('strong').textContent(), 'completed');
    assert.ok(
      codecCalls.slice(before).some((c) => c.status === 200),
      `the UI decoded through the codec: ${JSON.stringify(codecCalls)}`,
    );
    await screenshot(page, 'temporal-ui-import-details');
  });
});
