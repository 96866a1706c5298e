// Bulk import in the web console (issue #33), in headless Chromium: files chosen through a workspace
// page's real file input go to POST /workspaces/{id}/imports as multipart; the page follows the
// import (its POST answers `running`, so `completed` on the page comes from reading GET /imports/{id}
// again) to its counts, then shows the failed item with its reason and message, links the created
// artifact, lists it among the workspace's artifacts and the import among its recent imports. A
// problem+json refusal is shown as the console shows others; dropped files are chosen too.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { consolePage, newPerson, signIn, type Person } from '../helpers/console.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

describe('importing files in the web console', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let person: Person;
  let dir: string;

  before(async () => {
    // Batches of 1: two files are two activities. At most 3 items: a 4th file is refused by the API.
    platform = await startPlatform({ IMPORT_BATCH: '1', IMPORT_MAX_ITEMS: '3' });
    browser = await launchBrowser();
    person = await newPerson(platform);
    dir = mkdtempSync(join(tmpdir(), 'console-import-'));
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  const file = (name: string, content: string | Uint8Array) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('uploads a Markdown file and an .exe, follows the import to completed, and reports the failure and the created artifact', async () => {
    const ws = (await person.api.post('/workspaces', { name: 'Imported notes' })).body.id as string;
    const markdown = file('field-guide.md', '# Field guide\n\nBracken and sorrel on the north slope.');
    const exe = file('tool.exe', new Uint8Array([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00]));

    const { context, page, dialogs } = await consolePage(browser);
    const importReads: number[] = [];
    page.on('response', (r) => {
      if (r.request().method() === 'GET' && /\/imports\/[^/?]+$/.test(new URL(r.url()).pathname)) importReads.push(r.status());
    });
    await signIn(page, platform, person, '/console/');
    await page.getByRole('list', { name: 'Your workspaces' }).getByRole('link', { name: 'Imported notes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Workspace: Imported notes' }).waitFor();
    const artifacts = page.getByRole('list', { name: 'Artifacts', exact: true });
    await page.getByText('No artifacts here yet.').waitFor();
    await page.getByText('No imports into this workspace yet.').waitFor();

    // Nothing chosen: the page says so, and nothing is sent.
    const importButton = page.getByRole('button', { name: 'Import', exact: true });
    await importButton.click();
    await page.getByRole('alert').filter({ hasText: 'Choose one or more files to import.' }).waitFor();

    await page.getByLabel('Files to import').setInputFiles([markdown, exe]);
    await page.getByTestId('import-chosen').filter({ hasText: '2 files chosen: field-guide.md, tool.exe' }).waitFor();
    await importButton.click();

    const progress = page.locator('section.import-progress');
    await progress.getByTestId('import-progress-state').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
    assert.equal(
      await progress.getByTestId('import-counts').textContent(),
      '2 of 2 items done: 1 created, 0 skipped, 1 failed, 0 remaining',
    );
    const bar = progress.getByRole('progressbar', { name: 'Progress' });
    assert.equal(await bar.getAttribute('max'), '2');
    assert.equal(await bar.getAttribute('value'), '2');
    assert.ok(importReads.length > 0 && importReads.every((s) => s === 200), `GET /imports/{id} read: ${JSON.stringify(importReads)}`);

    // What the API recorded, to check the page against.
    const [recorded] = (await person.api.get(`/workspaces/${ws}/imports`)).body.items as { id: string; state: string; counts: unknown }[];
    assert.equal(recorded!.state, 'completed');
    assert.equal(await progress.getAttribute('data-import-id'), recorded!.id);
    const created = (await person.api.get(`/imports/${recorded!.id}/items?status=created`)).body.items as { artifact_id: string }[];
    const failed = (await person.api.get(`/imports/${recorded!.id}/items?status=failed`)).body.items as {
      reason: string;
      message: string;
    }[];
    assert.equal(created.length, 1);
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.reason, 'unsupported-type');

    // The failed item: the file's name, its reason and the API's message.
    const failedList = progress.getByRole('list', { name: 'Failed items' });
    const failure = failedList.getByRole('listitem');
    await failure.waitFor();
    assert.equal(await failure.count(), 1);
    const failureText = await failure.innerText();
    assert.match(failureText, /tool\.exe/);
    assert.equal(await failure.getByTestId('item-reason').textContent(), 'unsupported-type');
    assert.ok(failureText.includes(failed[0]!.message), `${failureText} shows "${failed[0]!.message}"`);

    // The created artifact: linked from the report by its title, and in the workspace's artifacts.
    const createdLink = progress.getByRole('list', { name: 'Created artifacts' }).getByRole('link', { name: 'Field guide' });
    await createdLink.waitFor();
    assert.equal(await createdLink.getAttribute('href'), `/console/artifacts/${created[0]!.artifact_id}`);
    await artifacts.getByRole('link', { name: 'Field guide' }).waitFor();
    assert.equal(await artifacts.getByRole('listitem').count(), 1);
    await artifacts.getByRole('listitem').filter({ hasText: 'updated by you' }).waitFor();
    assert.match(await artifacts.getByRole('listitem').innerText(), /Markdown\s+Field guide\s+draft · revision 1 · updated by you/);

    // The recent imports: this one, completed.
    const recent = page.getByRole('list', { name: 'Recent imports' });
    await recent.getByRole('listitem').filter({ hasText: 'completed' }).waitFor();
    assert.equal(await recent.getByRole('listitem').count(), 1);
    assert.match(await recent.getByRole('listitem').innerText(), /files · 2 items completed 1 created, 0 skipped, 1 failed/);

    await screenshot(page, 'console-import');

    // The created artifact opens from the report.
    await createdLink.click();
    await page.waitForURL(`${platform.url}/console/artifacts/${created[0]!.artifact_id}`);
    await page.getByRole('heading', { level: 1, name: 'Field guide' }).waitFor();

    // Back in the workspace, the import's report again from the recent imports (the page no longer
    // knows the files' names: an item is named by its position and key).
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Workspace: Imported notes' }).waitFor();
    await page
      .getByRole('list', { name: 'Recent imports' })
      .getByRole('button', { name: /Show report/ })
      .click();
    const again = page.locator('section.import-progress').getByRole('list', { name: 'Failed items' }).getByRole('listitem');
    await again.waitFor();
    // A report opened later names the file too: the API's item outcome carries its name.
    assert.match(await again.innerText(), /^tool\.exe unsupported-type /);
    assert.deepEqual(dialogs, []);
    await context.close();
  });

  it('shows the API’s refusal of too many files, and takes dropped files', async () => {
    const ws = (await person.api.post('/workspaces', { name: 'Refusals' })).body.id as string;
    const { context, page } = await consolePage(browser);
    await signIn(page, platform, person, '/console/');
    await page.getByRole('list', { name: 'Your workspaces' }).getByRole('link', { name: 'Refusals' }).click();
    await page.getByRole('heading', { level: 1, name: 'Workspace: Refusals' }).waitFor();

    // Four files where IMPORT_MAX_ITEMS is 3: the API's problem+json detail, as an alert; no import.
    const four = [1, 2, 3, 4].map((n) => file(`note-${n}.md`, `# Note ${n}\n\nText ${n}.`));
    await page.getByLabel('Files to import').setInputFiles(four);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'An import holds at most 3 items' }).waitFor();
    assert.equal((await person.api.get(`/workspaces/${ws}/imports`)).body.items.length, 0);
    assert.equal(await page.locator('section.import-progress').count(), 0);

    // A file dropped on the control is chosen, and imported.
    const transfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['# Dropped note\n\nA note dropped in.'], 'dropped.md', { type: 'text/markdown' }));
      return dt;
    });
    await page.getByTestId('import-drop-zone').dispatchEvent('drop', { dataTransfer: transfer });
    await page.getByTestId('import-chosen').filter({ hasText: '1 file chosen: dropped.md' }).waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByTestId('import-progress-state').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
    await page.getByRole('list', { name: 'Artifacts', exact: true }).getByRole('link', { name: 'Dropped note' }).waitFor();
    assert.equal((await person.api.get(`/workspaces/${ws}/imports`)).body.items[0].counts.created, 1);
    await context.close();
  });
});
