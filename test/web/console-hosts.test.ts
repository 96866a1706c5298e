// The console's Hosts page (issue #34), in headless Chromium: a person with no host reads what a host
// is, adds one from the form, and sees a host made over REST listed as offline and never connected
// (another person's host is not shown). "Connect a relay" makes a server credential bound to the host
// and shows the relay's command with its secret once: the secret signs in at /auth/token, the
// credential names the host's workspace only, and after the display is dismissed (or the page
// reloaded) the secret is nowhere in the page or the browser's storage. The command, run as shown
// (through a shell, npx and the repository's bin) starts a real relay, and the page then shows the
// host connected with the relay's version, sandbox and local policy.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { consolePage, newPerson, probe, reloadSignedIn, signIn, type Person } from '../helpers/console.js';
import { hostType } from '../helpers/relay-process.js';
import { exchange } from '../helpers/credentials.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const root = resolve(import.meta.dirname, '../..');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the hosts page of the web console', () => {
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

  async function open(person: Person): Promise<{ page: Page; dialogs: string[] }> {
    const { page, dialogs } = await consolePage(browser, {}, (context) =>
      context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.url }),
    );
    await signIn(page, platform, person, '/console/hosts');
    await page.getByRole('heading', { level: 1, name: 'Hosts' }).waitFor();
    return { page, dialogs };
  }

  async function workspace(person: Person, name: string): Promise<string> {
    const made = await person.api.post('/workspaces', { name });
    assert.equal(made.status, 201, made.text);
    return made.body.id as string;
  }

  async function host(person: Person, ws: string, title: string): Promise<string> {
    const made = await person.api.post('/artifacts', {
      title,
      content_type: hostType,
      content: JSON.stringify({ notes: 'the desk one' }),
      collection_id: ws,
    });
    assert.equal(made.status, 201, made.text);
    return made.body.id as string;
  }

  it('explains hosts when there are none, and adds one from the form', async () => {
    const person = await newPerson(platform);
    const ws = await workspace(person, 'Desk');
    const { page, dialogs } = await open(person);
    await page.getByText('You have no hosts yet.').waitFor();
    await page.getByText(/A host is one of your own computers/).waitFor();

    // Reached from the console's navigation too.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Hosts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Hosts' }).waitFor();

    const form = page.getByRole('form', { name: 'Add a host' });
    await form.getByLabel('Host name').fill('Workstation');
    assert.equal(await form.getByLabel('Workspace').inputValue(), ws, 'the only workspace is chosen');
    await form.getByRole('button', { name: 'Add host' }).click();
    await form.getByRole('status').getByText('Added “Workstation”.', { exact: false }).waitFor();

    const card = page.getByRole('region', { name: 'Workstation', exact: true });
    await card.getByText('Offline', { exact: true }).waitFor();
    await card.getByText('never connected').waitFor();
    const listed = await person.api.get(`/artifacts?collection_id=${encodeURIComponent(ws)}`);
    assert.equal(listed.status, 200, listed.text);
    const made = (listed.body.items as { title: string; content_type: string; id: string }[]).filter((a) => a.title === 'Workstation');
    assert.equal(made.length, 1);
    assert.equal(made[0]!.content_type, hostType);
    assert.equal(await card.getAttribute('data-host-id'), made[0]!.id);
    assert.deepEqual(dialogs, []);
    await page.context().close();
  });

  it('lists a host as offline and shows the relay command with its secret once', async () => {
    const person = await newPerson(platform);
    const other = await newPerson(platform);
    const ws = await workspace(person, 'Laptop work');
    await workspace(person, 'Elsewhere'); // a second workspace the credential does not name
    const title = `Laptop ${probe}`;
    const hostId = await host(person, ws, title);
    await host(other, await workspace(other, 'Theirs'), 'Their desktop');

    const { page, dialogs } = await open(person);
    const card = page.getByRole('region', { name: title, exact: true });
    await card.waitFor();
    await card.getByText('Offline', { exact: true }).waitFor();
    await card.getByText('never connected').waitFor();
    await card.getByText('Laptop work').waitFor(); // the workspace, by name
    assert.equal(await page.getByRole('region', { name: 'Their desktop', exact: true }).count(), 0, "another person's host is not listed");
    assert.equal(await page.locator('img').count(), 0, 'the title stays text');

    await card.getByRole('button', { name: 'Connect a relay' }).click();
    const shown = card.getByRole('region', { name: `Start the relay on “${title}”` });
    await shown.waitFor();
    await shown.getByText('Copy it now: the secret in it will not be shown again.').waitFor();
    const command = await shown.getByRole('textbox', { name: 'Relay command' }).inputValue();
    const parsed =
      /^PLATFORM_RELAY_CLIENT_SECRET='(scs_[A-Za-z0-9]+)' npx --yes --package=\. platform-relay --url (\S+) --client-id (\S+)$/.exec(
        command,
      );
    assert.ok(parsed, command);
    const [, secret, url, clientId] = parsed as unknown as [string, string, string, string];
    assert.equal(url, new URL(platform.url).origin);
    assert.match(clientId, /^relay-laptop-img-src-x-onerror-alert-1\.[A-Za-z0-9]+$/);
    await shown.getByRole('button', { name: 'Copy command' }).click();
    await shown.getByRole('status').getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), command);

    // The credential is bound to the host, reads only its workspace, and its secret signs in.
    const creds = await person.api.get('/server-credentials');
    const cred = (creds.body.items as Record<string, unknown>[]).find((c) => c.client_id === clientId);
    assert.ok(cred, creds.text);
    assert.equal(cred.server_id, 'relay');
    assert.equal(cred.host_id, hostId);
    assert.deepEqual(cred.scopes, ['artifact:read']);
    assert.deepEqual(cred.resource_filters, { workspaces: [ws], collections: [] });
    const token = await exchange(platform.url, { client_id: clientId, client_secret: secret });
    assert.equal(token.status, 200, JSON.stringify(token.body));
    assert.equal(token.body.scope, 'artifact:read');

    // Dismissed, the secret is gone; the credential stays listed under the host, by its id.
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });
    await card
      .getByRole('list', { name: `Relay credentials of ${title}` })
      .getByText(clientId)
      .waitFor();
    assert.equal((await page.content()).includes(secret), false);
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }) + document.cookie);
    assert.equal(stored.includes(secret), false);

    // A second connection makes a second credential with the next name.
    await card.getByRole('button', { name: 'Connect a relay' }).click();
    const again = await shown.getByRole('textbox', { name: 'Relay command' }).inputValue();
    assert.match(again, new RegExp(`--client-id relay-laptop-img-src-x-onerror-alert-1-2\\.`));
    assert.equal(again.includes(secret), false);

    // After a reload neither secret is shown again.
    const second = /PLATFORM_RELAY_CLIENT_SECRET='([^']+)'/.exec(again)![1]!;
    await reloadSignedIn(page, person);
    await card
      .getByRole('list', { name: `Relay credentials of ${title}` })
      .getByText(new RegExp(`${escape('-2.')}`))
      .waitFor();
    const html = await page.content();
    assert.equal(html.includes(secret) || html.includes(second), false, 'never shown again');
    assert.equal(await card.getByRole('region', { name: /Start the relay/ }).count(), 0);
    assert.deepEqual(dialogs, []);
    await page.context().close();
  });

  it('shows the host connected once the command runs, with what its relay reports', async () => {
    const person = await newPerson(platform);
    const ws = await workspace(person, 'Relay desk');
    await host(person, ws, 'Build box');
    const { page, dialogs } = await open(person);
    const card = page.getByRole('region', { name: 'Build box', exact: true });
    await card.getByText('never connected').waitFor();
    await card.getByRole('button', { name: 'Connect a relay' }).click();
    const command = await card.getByRole('textbox', { name: 'Relay command' }).inputValue();
    await card.getByRole('button', { name: 'I have copied it' }).click();

    // The command as the person pastes it, in the checkout, with a policy and a state
    // folder of the test's (not the machine's ~/.config). npm stays offline: nothing is downloaded.
    mkdirSync(join(root, '.dev'), { recursive: true });
    const state = mkdtempSync(join(root, '.dev', 'console-relay-'));
    const policy = join(state, 'policy.json');
    const allowed = '@modelcontextprotocol/server-everything';
    writeFileSync(policy, JSON.stringify({ commands: ['npx'], packages: [allowed], repositories: [], folders: [], network: false }));
    const relay = spawn('sh', ['-c', `${command} --policy '${policy}' --state-dir '${state}'`], {
      cwd: root,
      detached: true, // its own process group: sh, npx and the relay stop together
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, npm_config_offline: 'true' },
    });
    let log = '';
    relay.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    const exited = new Promise((done) => relay.once('exit', done));
    try {
      // Read again as soon as the relay says it is connected, rather than at the page's next refresh.
      for (let waited = 0; !/connected as host "Build box"/.test(log); waited += 100) {
        assert.ok(waited < 60_000 && relay.exitCode === null, `the relay did not connect:\n${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await page.getByRole('button', { name: 'Refresh' }).click();
      await card.getByText('Connected', { exact: true }).waitFor();
      const facts = await card.locator('dl.facts').first().innerText();
      assert.match(facts, /Relay\s+version \S+, \S+/);
      assert.doesNotMatch(facts, /Sandbox\s+unknown/);
      const policyFacts = card.getByRole('definition').filter({ hasText: allowed });
      await policyFacts.waitFor();
      assert.match(await card.innerText(), /Network\s+off/);
      await card.getByText(/last seen \d/).waitFor();
      await card.getByText('None right now: a server starts at its first call.').waitFor();
      await screenshot(page, 'console-hosts');
    } finally {
      if (relay.exitCode === null && relay.signalCode === null) process.kill(-relay.pid!, 'SIGTERM');
      await exited;
      rmSync(state, { recursive: true, force: true });
    }
    assert.deepEqual(dialogs, []);
    await page.context().close();
  });
});
