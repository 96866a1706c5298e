// A chat in the web console (issue #36), in headless Chromium, with the local OpenAI-compatible
// stand-in streaming the model's answer slowly: the page shows the answer growing as it is written,
// then the turn as the chat stores it, its citation a link to the cited artifact; the question's
// markup stays text; a question the API refuses shows its error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, draft, newPerson, probe, signIn } from '../helpers/console.js';
import { eventually } from '../helpers/http.js';
import { FakeOpenAI } from '../helpers/openai-server.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const chatType = 'application/vnd.platform.chat+json';
const pieces = ['The ', 'gearbox ', 'oil ', 'is ', 'changed ', 'every ', '2000 ', 'hours ', '[1].'];
const whole = pieces.join('');

describe('a chat in the web console', () => {
  let platform: TestPlatform;
  let model: FakeOpenAI;
  let browser: Browser;

  before(async () => {
    model = await new FakeOpenAI().start();
    model.reply = () => ({ content: whole, chunks: pieces, chunkDelayMs: 400 });
    platform = await startPlatform({
      LLM_MODEL: 'test-model',
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-test',
      LLM_TIMEOUT_SECONDS: '20',
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
    await model?.close();
  });

  it('streams the answer, then shows the turn with its citation linked; a refused question shows why', async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Plant' })).body.id as string;
    const fact = await draft(api, ws, 'Gearbox service', 'The gearbox oil is changed every 2000 hours.');
    await eventually(
      async () => (await api.post('/artifacts/search', { query: 'gearbox oil' })).body.results.some((r: { id: string }) => r.id === fact),
      30_000,
      'the fact searchable',
    );
    const chat = (await api.post('/artifacts', { title: 'Maintenance', content_type: chatType, content: '{}', collection_id: ws })).body
      .id as string;

    const { context, page, dialogs } = await consolePage(browser);
    await signIn(page, platform, person, `/console/artifacts/${chat}`);
    await page.getByText('No questions yet.').waitFor();
    await page.getByLabel('Your question').fill(`How often is the gearbox oil changed? ${probe}`);
    await page.getByRole('button', { name: 'Ask' }).click();

    // The answer as it is being written: some of it shown, not yet all.
    const streaming = page.getByTestId('chat-streaming');
    await page.waitForFunction(
      (whole) => {
        const text = document.querySelector('[data-testid="chat-streaming"] .chat-text')?.textContent ?? '';
        return text.startsWith('The gearbox') && text.length < whole.length;
      },
      whole,
      { timeout: 30_000 },
    );
    assert.equal(await streaming.getAttribute('aria-live'), 'polite');

    // Then the turn as the chat holds it.
    const answer = page.locator('[data-testid="chat-turn"][data-role="assistant"]');
    await answer.getByText(/every 2000 hours/).waitFor();
    await streaming.waitFor({ state: 'detached' });
    const question = page.locator('[data-testid="chat-turn"][data-role="user"]');
    assert.match(await question.innerText(), /How often is the gearbox oil changed\? <img src=x onerror=alert\(1\)>/);
    const citation = answer.getByTestId('chat-citation');
    assert.equal(await citation.getAttribute('href'), `/console/artifacts/${fact}`);
    assert.match(await citation.innerText(), /Gearbox service/);
    assert.equal(await answer.getByRole('link', { name: '[1]', exact: true }).getAttribute('href'), `/console/artifacts/${fact}`);
    const stored = JSON.parse((await api.get(`/artifacts/${chat}`)).body.content);
    assert.equal(stored.turns.length, 2);
    assert.equal(stored.turns[1].content, whole);

    // The chat is deleted behind the page's back: the next question is refused, and the page says so.
    assert.equal((await api.delete(`/artifacts/${chat}`)).status, 204);
    await page.getByLabel('Your question').fill('And the filter?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /not found|No artifact|not visible/i);
    assert.deepEqual(dialogs, []);
    await context.close();
  });

  it('picks up an answer already being written when opened, and a turn someone else adds while it is open', async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Plant' })).body.id as string;
    const fact = await draft(api, ws, 'Gearbox service', 'The gearbox oil is changed every 2000 hours.');
    await eventually(
      async () => (await api.post('/artifacts/search', { query: 'gearbox oil' })).body.results.some((r: { id: string }) => r.id === fact),
      30_000,
      'the fact searchable',
    );
    const chat = (await api.post('/artifacts', { title: 'Maintenance', content_type: chatType, content: '{}', collection_id: ws })).body
      .id as string;
    const slow = ['The ', 'gearbox ', 'oil ', '<b>bold</b> ', ...Array.from({ length: 12 }, (_, i) => `w${i} `), '[1].'];
    model.reply = () => ({ content: slow.join(''), chunks: slow, chunkDelayMs: 700 });
    const partWritten = (whole: string) => {
      const texts = [...document.querySelectorAll('[data-testid="chat-streaming"] .chat-text')].map((e) => e.textContent ?? '');
      return texts.some((t) => t.startsWith('The gearbox') && t.length < whole.length);
    };
    try {
      // Asked elsewhere (another client), then the page opened while the answer is written.
      const first = await api.post(`/artifacts/${chat}/turns`, { message: 'Gearbox oil, asked before the page opened?', wait_seconds: 0 });
      assert.equal(first.status, 202, first.text);
      const { context, page, dialogs } = await consolePage(browser);
      await signIn(page, platform, person, `/console/artifacts/${chat}`);
      await page.waitForFunction(partWritten, slow.join(''), { timeout: 30_000 });
      await page.getByText('Gearbox oil, asked before the page opened?').waitFor();
      await page.locator('[data-testid="chat-turn"][data-role="assistant"]').getByText(/w11/).waitFor({ timeout: 30_000 });
      await page.getByTestId('chat-streaming').waitFor({ state: 'detached' });

      // Asked elsewhere while the page is open: followed as it is written, then shown as stored.
      const second = await api.post(`/artifacts/${chat}/turns`, { message: 'Gearbox oil, asked while the page is open?', wait_seconds: 0 });
      assert.equal(second.status, 202, second.text);
      await page.waitForFunction(partWritten, slow.join(''), { timeout: 30_000 });
      await page
        .locator('[data-testid="chat-turn"][data-role="user"]')
        .getByText('Gearbox oil, asked while the page is open?')
        .waitFor({ timeout: 30_000 });
      await page.getByTestId('chat-streaming').waitFor({ state: 'detached', timeout: 30_000 });
      const answers = page.locator('[data-testid="chat-turn"][data-role="assistant"]');
      assert.equal(await answers.count(), 2);
      // The model's markup is text: shown as written, never an element.
      assert.match(await answers.nth(1).innerText(), /<b>bold<\/b>/);
      assert.equal(await page.locator('.chat-text b').count(), 0);
      assert.deepEqual(dialogs, []);
      await context.close();
    } finally {
      model.reply = () => ({ content: whole, chunks: pieces, chunkDelayMs: 400 });
    }
  });
});
