// The console's settings page (issue #20), in headless Chromium: a person creates an API key and sees
// its secret once (copied, then used from the test), not after a reload; revokes it with the confirm
// step and the API refuses it. They revoke a consent a server credential relies on (X-On-Behalf-Of
// then refused) and remove a pending OAuth connection; a problem from the API shows as an alert.
// Server credentials (issue #37): created with every field, the secret shown once (gone after a
// reload), rotated, deactivated and switched back on, with "last used" after a token exchange; both
// forms offer every scope the API knows.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, newPerson, probe, reloadSignedIn, signIn, type Person } from '../helpers/console.js';
import { scopes } from '../../src/identity/principal.js';
import { asServer, createServerCredential, exchange } from '../helpers/credentials.js';
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

  it('creates a server credential, shows its secret once, rotates, deactivates and shows its last use', async () => {
    const person = await newPerson(platform);
    const research = (await person.api.post('/workspaces', { name: 'Research' })).body.id as string;
    assert.equal((await person.api.post('/workspaces', { name: 'Drafts' })).status, 201);
    const page = await open(person, ['clipboard-read', 'clipboard-write']);

    // Both forms offer every scope the API knows, events:subscribe included.
    const keys = page.getByRole('region', { name: 'API keys' });
    const servers = page.getByRole('region', { name: 'Server credentials' });
    await servers.getByText('You have no server credentials.').waitFor();
    for (const form of [keys.getByRole('form', { name: 'New API key' }), servers.getByRole('form', { name: 'New server credential' })]) {
      const offered = await form
        .getByRole('group', { name: 'Scopes' })
        .getByRole('checkbox')
        .evaluateAll((boxes) => boxes.map((box) => (box.closest('label')?.textContent ?? '').trim().split(' ')[0]));
      assert.deepEqual(offered, [...scopes]);
    }
    await keys.getByRole('checkbox', { name: /events:subscribe/ }).waitFor();

    // A content-type scope the API refuses is said in an alert, and no key is made.
    await keys.getByLabel('Key name').fill('Typed');
    await keys.getByLabel('Content-type scopes').fill('resource:text/markdown:read resource:nope');
    await keys.getByRole('button', { name: 'Create key' }).click();
    await keys
      .getByRole('alert')
      .getByText(/Could not create the key/)
      .waitFor();
    assert.deepEqual((await person.api.get('/api-keys')).body.items, []);

    // Every field: name (with markup), client id, server, host, scopes, and a workspace filter chosen by name.
    const form = servers.getByRole('form', { name: 'New server credential' });
    await form.getByLabel('Name', { exact: true }).fill(`Indexer ${probe}`);
    await form.getByLabel('Client ID').fill('indexer');
    await form.getByLabel('Server ID').fill('notes-server');
    await form.getByLabel('Host ID').fill('laptop');
    await form.getByRole('checkbox', { name: /events:subscribe/ }).check();
    await form.getByLabel('Content-type scopes').fill(' resource:text/markdown:read ');
    await form.getByRole('radio', { name: 'only these workspaces:' }).check();
    await form.getByRole('group', { name: 'Which workspaces' }).getByRole('checkbox', { name: 'Research' }).check();
    await form.getByRole('button', { name: 'Create server credential' }).click();

    const shown = servers.getByRole('region', { name: `The secret of “Indexer ${probe}”` });
    await shown.waitFor();
    await shown.getByText('Copy it now: you will not see it again.').waitFor();
    const secret = await shown.getByRole('textbox', { name: 'Client secret' }).inputValue();
    assert.match(secret, /^scs_[0-9A-Za-z]+$/);
    const clientId = await shown.locator('code').innerText();
    assert.match(clientId, /^indexer\.[0-9A-Za-z]+$/);
    await shown.getByRole('button', { name: 'Copy secret' }).click();
    await shown.getByRole('status').getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);

    const row = servers.locator(`tr[data-client-id="${clientId}"]`);
    await row.waitFor();
    const listed = await row.innerText();
    assert.match(listed, /artifact:read, events:subscribe, resource:text\/markdown:read/);
    assert.match(listed, /1 workspace, all collections/);
    assert.match(listed, /Research/, 'the filter named, not its id');
    assert.doesNotMatch(listed, new RegExp(research), 'no raw id');
    assert.match(listed, /active/);
    assert.match(listed, /notes-server/);
    assert.match(listed, /never/, 'not used yet');
    assert.equal(await page.locator('img').count(), 0, 'the name stays text');
    const stored = (await person.api.get(`/server-credentials/${clientId}`)).body;
    assert.deepEqual(stored.scopes, ['artifact:read', 'events:subscribe', 'resource:text/markdown:read']);
    assert.deepEqual(stored.resource_filters, { workspaces: [research], collections: '*' });
    assert.equal(stored.host_id, 'laptop');

    // The secret works: a token exchange, which the list shows as its last use.
    const cred = { client_id: clientId, client_secret: secret };
    const server = await asServer(platform.url, cred);
    assert.equal((await server.get(`/workspaces/${research}`)).status, 200);

    // Dismissed, then reloaded: the secret is gone, and "last used" is the exchange.
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });
    await reloadSignedIn(page, person);
    await row.waitFor();
    assert.doesNotMatch(await row.innerText(), /never/, 'last used after the exchange');
    assert.equal(await page.getByRole('region', { name: /secret of/ }).count(), 0);
    assert.equal((await page.content()).includes(secret), false, 'never shown again');
    const kept = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }) + document.cookie);
    assert.equal(kept.includes(secret), false);

    // A creation the API refuses (the same client id again) is said in an alert.
    await form.getByLabel('Name', { exact: true }).fill('Again');
    await form.getByLabel('Client ID').fill('indexer');
    await form.getByLabel('Server ID').fill('notes-server');
    await form.getByLabel('Host ID').fill('laptop');
    await form.getByRole('button', { name: 'Create server credential' }).click();
    await servers
      .getByRole('alert')
      .getByText(/Could not create the server credential/)
      .waitFor();

    // Rotate: asked first (Escape keeps it), then a new secret shown once; the old one stops at once.
    await row.getByRole('button', { name: `Rotate the secret of Indexer ${probe}` }).click();
    const asking = row.getByRole('group', { name: /Rotate the secret of “Indexer/ });
    await asking.getByRole('button', { name: 'Rotate secret' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Rotate secret');
    await page.keyboard.press('Escape');
    await asking.waitFor({ state: 'detached' });
    assert.equal((await exchange(platform.url, cred)).status, 200, 'not rotated');
    await row.getByRole('button', { name: `Rotate the secret of Indexer ${probe}` }).click();
    await asking.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = servers.getByRole('region', { name: `The new secret of “Indexer ${probe}”` });
    await rotated.waitFor();
    const newSecret = await rotated.getByRole('textbox', { name: 'Client secret' }).inputValue();
    assert.match(newSecret, /^scs_/);
    assert.notEqual(newSecret, secret);
    assert.equal((await exchange(platform.url, cred)).status, 401, 'the old secret stops');
    assert.equal((await server.get(`/workspaces/${research}`)).status, 401, 'and the tokens it got');
    const renewed = { client_id: clientId, client_secret: newSecret };
    const again = await asServer(platform.url, renewed);
    await rotated.getByRole('button', { name: 'I have copied it' }).click();

    // Deactivate, with the confirm step: the credential and its tokens stop; reactivated, it works again.
    await row.getByRole('button', { name: `Deactivate Indexer ${probe}` }).click();
    await row
      .getByRole('group', { name: /Deactivate “Indexer/ })
      .getByRole('button', { name: 'Deactivate' })
      .click();
    await row.getByRole('button', { name: `Reactivate Indexer ${probe}` }).waitFor();
    assert.match(await row.innerText(), /deactivated/);
    assert.equal((await exchange(platform.url, renewed)).status, 401);
    assert.equal((await again.get(`/workspaces/${research}`)).status, 401);
    assert.equal((await person.api.get(`/server-credentials/${clientId}`)).body.active, false);
    await row.getByRole('button', { name: `Reactivate Indexer ${probe}` }).click();
    await row.getByRole('button', { name: `Deactivate Indexer ${probe}` }).waitFor();
    assert.equal((await exchange(platform.url, renewed)).status, 200);
    assert.deepEqual(dialogs(), []);
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
