// Names, never raw ids, on the commit pages (issue #37), in headless Chromium. Ada requests a commit
// through her API key "ci-bot"; Bob, who may approve commits into the collection, reads "Requested by
// <Ada's e-mail> through ci-bot (API key)" in the list and on the commit, approves it, and the versions
// written are the artifacts' titles, each a link. Ada, opening the commit afresh, reads "you" and Bob's
// e-mail, every name from one GET /names request.
// The workspace's events name their actor too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, draft, newPerson, signIn, type Person } from '../helpers/console.js';
import { requestCommit } from '../helpers/commit.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

/** Goes to a console path the way the console's links do (a reload would sign in again). */
async function inConsole(page: Page, path: string) {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
}

/** The text of `selector` once no name in it is still being looked up ("…"). */
async function named(page: Page, selector: string): Promise<string> {
  await page.locator(selector).first().waitFor();
  await page.waitForFunction((s) => {
    const nodes = [...document.querySelectorAll(s)];
    return nodes.length > 0 && nodes.every((n) => !n.textContent?.includes('…'));
  }, selector);
  return page.locator(selector).first().innerText();
}

const pattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('names on the commit pages', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let ada: Person;
  let bob: Person;
  let adaId: string;
  let bobId: string;

  before(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    ada = await newPerson(platform);
    bob = await newPerson(platform);
    adaId = (await ada.api.get('/me')).body.id;
    bobId = (await bob.api.get('/me')).body.id;
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('names the requester, the credential, the approver and the versions written, never their ids', async () => {
    const ws = (await ada.api.post('/workspaces', { name: 'Digest drafts' })).body.id as string;
    const col = (await ada.api.post('/collections', { name: 'Digests' })).body.id as string;
    assert.equal((await ada.api.post(`/workspaces/${ws}/shares`, { person_id: bobId, flags: 'R' })).status, 200);
    assert.equal((await ada.api.post(`/collections/${col}/shares`, { person_id: bobId, flags: 'RC' })).status, 200);
    const alpha = await draft(ada.api, ws, 'Alpha digest', '# Alpha\n');
    const beta = await draft(ada.api, ws, 'Beta digest', '# Beta\n');

    const keyReply = await ada.api.post('/api-keys', { name: 'ci-bot', scopes: ['artifact:read', 'artifact:write'] });
    assert.equal(keyReply.status, 201, keyReply.text);
    const keyId = keyReply.body.id as string;
    const id = await requestCommit(ada.api.withToken(keyReply.body.key), ws, col, 'Weekly digest');
    const plainId = await requestCommit(ada.api, ws, col, 'Plain request');
    assert.deepEqual((await ada.api.get(`/commits/${id}`)).body.requested_via, { kind: 'api_key', id: keyId });

    const ids = [adaId, bobId, keyId, alpha, beta, id, plainId, ws, col];
    const noIds = (text: string, where: string) => {
      for (const raw of ids) assert.ok(!text.includes(raw), `${where} shows the id ${raw}: ${text}`);
      assert.doesNotMatch(text, /api_key [0-9a-f-]{8,}/, `${where} shows a credential's id`);
    };
    const adaEmail = pattern(ada.email);

    // Bob's list: Ada by her e-mail, the key by its name.
    const bobView = await consolePage(browser);
    await signIn(bobView.page, platform, bob, '/console/');
    const list = bobView.page.getByRole('list', { name: 'Commits awaiting approval' });
    await list.getByRole('link', { name: 'Weekly digest' }).waitFor();
    const listText = await named(bobView.page, 'ul.commits');
    noIds(listText, 'the list of commits');
    const entry = list.getByRole('listitem').filter({ has: bobView.page.getByRole('link', { name: 'Weekly digest' }) });
    assert.match(await entry.innerText(), new RegExp(`Requested by\\s+${adaEmail} through ci-bot \\(API key\\)`));
    const plain = list.getByRole('listitem').filter({ has: bobView.page.getByRole('link', { name: 'Plain request' }) });
    assert.match(await plain.innerText(), new RegExp(`Requested by\\s+${adaEmail}\\n`), 'no credential when none was used');

    // Bob's commit page, then his approval.
    await entry.getByRole('link', { name: 'Weekly digest' }).click();
    await bobView.page.getByRole('heading', { level: 1, name: 'Weekly digest' }).waitFor();
    const facts = await named(bobView.page, 'article .facts');
    assert.match(facts, new RegExp(`Requested by\\s+${adaEmail} through ci-bot \\(API key\\)`));
    assert.match(facts, /Workspace\s+Digest drafts/);
    assert.match(facts, /Collection\s+Digests/);
    await bobView.page.getByRole('button', { name: 'Approve' }).click();
    await bobView.page.getByTestId('commit-state').getByText('committed', { exact: true }).waitFor({ timeout: 30_000 });
    const written = bobView.page.getByRole('list', { name: 'Versions written' });
    await written.getByRole('link', { name: 'Alpha digest' }).waitFor();
    assert.match(await written.innerText(), /Alpha digest: version 1/);
    assert.match(await written.innerText(), /Beta digest: version 1/);
    const committed = (await ada.api.get(`/commits/${id}`)).body;
    ids.push(...(committed.results as { artifact_id: string }[]).map((r) => r.artifact_id));
    const hrefs = await written.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    assert.deepEqual(
      hrefs.sort(),
      (committed.results as { artifact_id: string }[]).map((r) => `/console/artifacts/${r.artifact_id}`).sort(),
      'each version written links to its artifact',
    );
    assert.match(await named(bobView.page, 'article .facts'), /Approved by\s+you,/);
    noIds(await named(bobView.page, 'article'), 'the commit page (approver)');

    // Ada, afresh on the commit: "you", Bob's e-mail, the key and both titles from one /names request.
    const adaView = await consolePage(browser);
    const asked: string[] = [];
    adaView.page.on('request', (r) => {
      if (new URL(r.url()).pathname.endsWith('/names')) asked.push(r.url());
    });
    await signIn(adaView.page, platform, ada, `/console/commits/${id}`);
    await adaView.page.getByRole('heading', { level: 1, name: 'Weekly digest' }).waitFor();
    await adaView.page.getByRole('list', { name: 'Versions written' }).getByRole('link', { name: 'Beta digest' }).waitFor();
    const adaFacts = await named(adaView.page, 'article .facts');
    assert.match(adaFacts, /Requested by\s+you through ci-bot \(API key\)/);
    assert.match(adaFacts, new RegExp(`Approved by\\s+${pattern(bob.email)},`));
    noIds(await named(adaView.page, 'article'), 'the commit page (requester)');
    assert.equal(asked.length, 1, `one GET /names for the page: ${asked.join(' ')}`);
    const query = new URL(asked[0]!).searchParams;
    assert.deepEqual(query.get('people')?.split(',').sort(), [adaId, bobId].sort());
    assert.equal(query.get('api_keys'), keyId);
    assert.equal(query.get('artifacts')?.split(',').length, 2);

    // The workspace's events: Bob reads Ada's e-mail as their actor.
    await inConsole(bobView.page, `/console/workspaces/${ws}`);
    const events = bobView.page.getByRole('list', { name: 'Workspace events, newest first' });
    await events
      .getByRole('link', { name: /Alpha digest/ })
      .first()
      .waitFor();
    const eventText = await named(bobView.page, 'ol.event-list');
    assert.match(eventText, new RegExp(`Artifact created (\\(deleted artifact\\) )?Alpha digest by ${adaEmail},`));
    noIds(eventText, 'the events');

    await bobView.context.close();
    await adaView.context.close();
  });
});
