// The web console in a real browser (headless Chromium through playwright-core): the page and its
// CSP, no path out of the build on the running platform, and a person signing in as the first-party
// client platform-console and seeing their workspaces.
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { consoleCsp } from '../../src/api/routes/console.js';
import { launchBrowser } from '../helpers/browser.js';
import { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { rawGet } from './raw-get.js';

describe('the web console', () => {
  let platform: TestPlatform;
  let browser: Browser;

  before(async () => {
    platform = await startPlatform({}, { worker: false });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('is served at /console/ under a strict CSP, and its script runs under it', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') violations.push(message.text());
    });
    const response = await page.goto(`${platform.url}/console/`);
    assert.equal(response?.status(), 200);
    const headers = response!.headers();
    assert.equal(headers['content-security-policy'], consoleCsp);
    assert.equal(headers['x-content-type-options'], 'nosniff');
    assert.equal(headers['referrer-policy'], 'same-origin');
    // The app rendered (its module script loaded and ran), and nothing was refused by the policy.
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.deepEqual(violations, []);
    await page.close();
  });

  it('refuses paths out of the build', async () => {
    for (const path of [
      '/console/assets/../../package.json',
      '/console/assets/..%2F..%2F..%2Fpackage.json',
      '/console/assets/%2e%2e/%2e%2e/package.json',
      '/console/../package.json',
    ]) {
      const res = await rawGet(platform.url, path);
      assert.ok(res.status === 404 || res.status === 400, `${path}: ${res.status}`);
      assert.doesNotMatch(res.body, /workspace-knowledge-platform/, path);
    }
  });

  // A real browser through the real pages: this is what found that a no-referrer page posts its forms
  // with `Origin: null`, which the login-CSRF check refused.
  it('signs a person in on the platform’s page and lists their workspaces', async () => {
    const email = `console-${randomBytes(4).toString('hex')}@example.test`;
    const password = randomBytes(12).toString('hex');
    const admin = await platform.admin();
    assert.equal((await admin.post('/users', { email, password })).status, 201);
    const person = await new Api(platform.url).login(email, password);
    for (const name of ['Research notes', 'Release <b>plans</b>']) assert.equal((await person.post('/workspaces', { name })).status, 201);

    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${platform.url}/console/`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The platform's own sign-in page (no script), then straight back: no consent page for the console.
    await page.waitForURL(/\/oauth\//);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    const tokenReply = page.waitForResponse((r) => r.url() === `${platform.url}/auth/token`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const issued = (await (
      await tokenReply.catch(async (err: Error) => {
        throw new Error(`${err.message}\nthe page is at ${page.url()}:\n${(await page.locator('body').innerText()).slice(0, 2000)}`);
      })
    ).json()) as { access_token: string };
    await page.waitForURL(`${platform.url}/console/`);
    const list = page.getByRole('list', { name: 'Your workspaces' });
    await list.waitFor();
    assert.deepEqual((await list.getByRole('listitem').allTextContents()).sort(), ['Release <b>plans</b>', 'Research notes']);
    // The person's e-mail comes with their own record, read after the page shows: wait for it.
    await page.getByTestId('signed-in').filter({ hasText: email }).waitFor();
    assert.equal(await page.getByTestId('signed-in').textContent(), `Signed in as ${email}`);
    // Nothing of the sign-in is left in storage: tokens are in memory, the PKCE verifier is removed;
    // only the flag that signs a reloaded tab in again is kept, for this tab.
    assert.deepEqual(await page.evaluate(() => ({ ...sessionStorage, ...localStorage })), { 'platform-console.resume': '1' });

    // Signing out revokes the refresh token and ends the sign-in page's session.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${platform.url}/oauth/sign-out`);
    await page.getByText('You are signed out.').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'a signed-out tab does not sign in again');
    const afterwards = await fetch(`${platform.url}/workspaces`, { headers: { authorization: `Bearer ${issued.access_token}` } });
    assert.equal(afterwards.status, 401, 'the access token ends with its revoked refresh token');
    await context.close();
  });
});
