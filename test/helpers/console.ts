// What the console's browser tests share: a person with a password, their drafts, and signing in
// through the console (the platform's own sign-in page, then straight back to the path).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { Api } from './http.js';
import type { TestPlatform } from './platform.js';

/** Markup that must stay text wherever the console shows it. */
export const probe = '<img src=x onerror=alert(1)>';

export interface Person {
  email: string;
  password: string;
  api: Api;
}

export async function newPerson(platform: TestPlatform): Promise<Person> {
  const email = `person-${randomBytes(4).toString('hex')}@example.test`;
  const password = randomBytes(12).toString('hex');
  const admin = await platform.admin();
  assert.equal((await admin.post('/users', { email, password })).status, 201);
  return { email, password, api: await new Api(platform.url).login(email, password) };
}

export async function draft(api: Api, ws: string, title: string, content: string): Promise<string> {
  const reply = await api.post('/artifacts', { title, content_type: 'text/markdown', content, collection_id: ws });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id as string;
}

/** Opens `path` in the console, signs in on the platform's page, and waits to be back there. */
export async function signIn(page: Page, platform: TestPlatform, person: Person, path: string): Promise<void> {
  await page.goto(`${platform.url}${path}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/oauth\//);
  await page.getByLabel('E-mail').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${platform.url}${path}`);
  await page.getByText(`Signed in as ${person.email}`).waitFor();
}

/** Reloads the page; the console signs in again by itself, on the platform's page, which may remember the person or ask again. */
export async function reloadSignedIn(page: Page, person: Person): Promise<void> {
  await page.reload();
  const signedIn = page.getByText(`Signed in as ${person.email}`);
  await page.getByLabel('E-mail').or(signedIn).waitFor();
  if (await page.getByLabel('E-mail').isVisible()) {
    await page.getByLabel('E-mail').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await signedIn.waitFor();
}

/**
 * A new page in a context of its own for a console test: a default timeout that suits a slow CI
 * machine, and every dialog recorded (and dismissed), so that a test can assert that none opened.
 */
export async function consolePage(
  browser: Browser,
  options: BrowserContextOptions = {},
  prepare?: (context: BrowserContext) => Promise<unknown>,
): Promise<{ context: BrowserContext; page: Page; dialogs: string[] }> {
  const context = await browser.newContext(options);
  await prepare?.(context);
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return { context, page, dialogs };
}
