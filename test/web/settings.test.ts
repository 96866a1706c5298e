// The console's settings page (issue #20), in headless Chromium: a person creates an API key and sees
// its secret once (copied, then used from the test), not after a reload; revokes it with the confirm
// step and the API refuses it. They revoke a consent a server credential relies on (X-On-Behalf-Of
// then refused) and remove a pending OAuth connection; a problem from the API shows as an alert.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, newPerson, probe, reloadSignedIn, signIn, type Person } from '../helpers/console.js';
import { asServer, createServerCredential } from '../helpers/credentials.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const authorizerType = 'application/vnd.platform.authorizer+json';

describe('the settings page of the web console', () => {
  let platform: TestPlatform;
  let browser: Browser;

  before(async () => {
    // The connection's authorizer names a loopback provider (never visited: the connection stays pending).
    platform = await startPlatform({ MCP_OUTBOUND_ALLOW: '127.0.0.0/8' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  // The dialogs of every page opened: none should ever open.
  const pages: string[][] = [];
  const dialogs = () => pages.flat();
  async function open(person: Person, permissions: string[] = []): Promise<Page> {
    const { page, dialogs: seen } = await consolePage(browser, {}, async (context) => {
      if (permissions.length) await context.grantPermissions(permissions, { origin: platform.url });
    });
    pages.push(seen);
    await signIn(page, platform, person, '/console/settings');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    return page;
  }

  it('creates an API key and shows its secret once, which works until it is revoked', async () => {
    const person = await newPerson(platform);
    const page = await open(person, ['clipboard-read', 'clipboard-write']);
    const keys = page.getByRole('region', { name: 'API keys' });
    await keys.getByText('You have no API keys.').waitFor();

    // A key named with markup, with one more scope chosen, from the keyboard.
    await keys.getByLabel('Key name').fill(`Deploy ${probe}`);
    await keys.getByRole('checkbox', { name: /search:read/ }).focus();
    await page.keyboard.press('Space');
    await keys.getByRole('button', { name: 'Create key' }).press('Enter');

    const shown = page.getByRole('region', { name: `Your new key “Deploy ${probe}”` });
    await shown.waitFor();
    await shown.getByText('Copy it now: you will not see it again.').waitFor();
    const key = await shown.getByRole('textbox', { name: 'API key' }).inputValue();
    assert.match(key, /^pk_[0-9a-f]{32}_[0-9A-Za-z]+$/);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    await shown.getByRole('status').getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);

    const row = keys.getByRole('row', { name: new RegExp(`Deploy ${probe.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) });
    await row.waitFor();
    assert.match(await row.innerText(), /artifact:read, search:read/);
    assert.equal(await page.locator('img').count(), 0, 'the name stays text');

    // The key works, as any client would send it.
    const used = await fetch(`${platform.url}/workspaces`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(used.status, 200, await used.text());
    const exchanged = await fetch(`${platform.url}/api-keys/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key }),
    });
    assert.equal(exchanged.status, 200);

    // Dismissed, the secret is gone from the page; it was never stored in the browser.
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });
    assert.equal((await page.content()).includes(key), false);
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }) + document.cookie);
    assert.equal(stored.includes(key), false);

    // After a reload (the console signs in again by itself), the key is listed without its secret.
    await reloadSignedIn(page, person);
    assert.equal(page.url(), `${platform.url}/console/settings`);
    await row.waitFor();
    assert.equal(await page.getByRole('region', { name: /Your new key/ }).count(), 0);
    assert.equal((await page.content()).includes(key), false, 'never shown again');

    // Revoke: the first press only asks; Escape keeps the key; the confirm button revokes it.
    await row.getByRole('button', { name: `Revoke key Deploy ${probe}` }).click();
    const ask = row.getByRole('group', { name: /Revoke “Deploy/ });
    await ask.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Revoke key', 'the confirm button has focus');
    await page.keyboard.press('Escape');
    await ask.waitFor({ state: 'detached' });
    assert.equal((await fetch(`${platform.url}/workspaces`, { headers: { authorization: `Bearer ${key}` } })).status, 200, 'not revoked');
    await row.getByRole('button', { name: `Revoke key Deploy ${probe}` }).click();
    await ask.getByRole('button', { name: 'Revoke key' }).press('Enter');
    await keys.getByText('You have no API keys.').waitFor();

    assert.equal((await fetch(`${platform.url}/workspaces`, { headers: { authorization: `Bearer ${key}` } })).status, 401);
    const again = await fetch(`${platform.url}/api-keys/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key }),
    });
    assert.equal(again.status, 401);
    assert.deepEqual(dialogs(), [], 'confirmed in the page, never with a dialog');
    await page.context().close();
  });

  it('revokes a consent and removes a connection, and shows what the API refuses', async () => {
    const person = await newPerson(platform);
    const owner = await platform.newUser();
    // A server credential someone else runs, which the person lets act for them.
    const cred = await createServerCredential(owner, ['artifact:read']);
    const granted = await person.api.post('/consents', { credential_kind: 'server_credential', credential_id: cred.client_id });
    assert.equal(granted.status, 201, granted.text);
    const server = await asServer(platform.url, cred);
    const me = (await person.api.get('/me')).body.id as string;
    const asPerson = () => server.request('GET', '/workspaces', { headers: { 'x-on-behalf-of': me } });
    assert.equal((await asPerson()).status, 200);
    // A second consent, revoked over REST while the page still shows it.
    const other = await createServerCredential(owner, ['artifact:read']);
    assert.equal(
      (await person.api.post('/consents', { credential_kind: 'server_credential', credential_id: other.client_id })).status,
      201,
    );

    // A connection started (pending: the provider is never visited) at an authorizer of their own.
    const ws = (await person.api.post('/workspaces', { name: 'Integrations' })).body.id as string;
    const authorizer = await person.api.post('/artifacts', {
      title: 'Notes OAuth',
      content_type: authorizerType,
      content: JSON.stringify({
        provider: 'notes',
        auth_url: 'http://127.0.0.1:9/authorize',
        token_url: 'http://127.0.0.1:9/token',
        scopes: ['openid'],
        client_id: 'console-test',
        pkce: true,
      }),
      collection_id: ws,
    });
    assert.equal(authorizer.status, 201, authorizer.text);
    const started = await person.api.post(`/connections/${authorizer.body.id}/start`, {});
    assert.equal(started.status, 200, started.text);
    const connectionId = started.body.id as string;

    const page = await open(person);
    const consents = page.getByRole('region', { name: 'Consents' });
    const row = consents.getByRole('row', { name: new RegExp(cred.client_id.replace(/\./g, '\\.')) });
    await row.waitFor();
    assert.match(await row.innerText(), /Server credential/);
    const stale = consents.getByRole('row', { name: new RegExp(other.client_id.replace(/\./g, '\\.')) });
    await stale.waitFor();

    // Revoked elsewhere meanwhile: the page says what the API answered, in an alert.
    assert.equal((await person.api.delete(`/consents/server_credential/${other.client_id}`)).status, 204);
    await stale.getByRole('button', { name: `Revoke consent for ${other.client_id}` }).click();
    await stale.getByRole('button', { name: 'Revoke consent' }).click();
    await consents
      .getByRole('alert')
      .getByText(/Could not revoke the consent/)
      .waitFor();

    await row.getByRole('button', { name: `Revoke consent for ${cred.client_id}` }).click();
    await row.getByRole('button', { name: 'Revoke consent' }).click();
    await row.waitFor({ state: 'detached' });
    assert.equal((await asPerson()).status, 403, 'the credential no longer acts for the person');
    assert.deepEqual((await person.api.get('/consents')).body.items, []);

    // The connection, named by its authorizer, removed after the confirm step.
    const connections = page.getByRole('region', { name: 'Connections' });
    const connection = connections.locator(`[data-connection-id="${connectionId}"]`);
    await connection.getByText('Notes OAuth').waitFor();
    assert.match(await connection.innerText(), /pending/);
    await connection.getByRole('button', { name: `Remove connection ${connectionId}` }).click();
    await connection.getByRole('button', { name: 'Cancel' }).click();
    await connection.getByRole('button', { name: `Remove connection ${connectionId}` }).click();
    await connection.getByRole('button', { name: 'Remove connection', exact: true }).click();
    await connections.getByText('You have no connections.').waitFor();
    assert.deepEqual((await person.api.get('/connections')).body.items, []);
    assert.deepEqual(dialogs(), []);
    await page.context().close();
  });
});
