// The search page of the web console (issue #37), in headless Chromium against a real platform, over
// a dozen Cranfield abstracts (test/fixtures/cranfield-sample.json) embedded by the real MiniLM model,
// so every rank and score on the page is a real one. The page is a chunk of its own, reached from the
// header; typing searches once after a pause; each control (preset, aperture, limit, containers,
// content types) changes both the request and what the page shows, which is compared with the API's
// own answer to the same body; the state is in the address (back, forward, a shared link); results
// say how they were found and why, in words; the count is announced; arrow keys move through the
// results; an empty answer and a refused request (its problem+json detail) are said. A container's
// search box leads here with its query and container.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page, Request } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, newPerson, signIn, type Person } from '../helpers/console.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

interface SampleDoc {
  cranfield_id: number;
  title: string;
  content: string;
}
const sample = JSON.parse(readFileSync('test/fixtures/cranfield-sample.json', 'utf8')) as { docs: SampleDoc[] };

interface Hit {
  id: string;
  title: string;
  content_type: string;
  container: { kind: string; id: string };
  score: number;
  retrievers: { lexical?: { rank: number; score: number }; semantic?: { rank: number; score: number; imputed?: true } };
}

interface Corpus {
  person: Person;
  windTunnel: string;
  heatLab: string;
  /** Cranfield id → artifact id. */
  ids: Map<number, string>;
}

/**
 * Two workspaces: the two slip-flow heat transfer papers (21 as text/plain, 22 as text/markdown) in
 * "Heat lab", the other ten in "Wind tunnel notes"; returns once every one has its embedding.
 */
async function corpus(platform: TestPlatform): Promise<Corpus> {
  const person = await newPerson(platform);
  const { api } = person;
  const windTunnel = (await api.post('/workspaces', { name: 'Wind tunnel notes' })).body.id as string;
  const heatLab = (await api.post('/workspaces', { name: 'Heat lab' })).body.id as string;
  const ids = new Map<number, string>();
  for (const doc of sample.docs) {
    const reply = await api.post('/artifacts', {
      title: doc.title,
      content_type: doc.cranfield_id === 22 ? 'text/markdown' : 'text/plain',
      content: doc.content,
      collection_id: [21, 22].includes(doc.cranfield_id) ? heatLab : windTunnel,
    });
    assert.equal(reply.status, 201, reply.text);
    ids.set(doc.cranfield_id, reply.body.id as string);
  }
  await eventually(
    async () => {
      const { body } = await api.post('/artifacts/search', { query: 'wing', limit: 50, aperture: { enabled: false } });
      const hits = body.results as Hit[];
      return hits.length === sample.docs.length && hits.every((h) => h.retrievers.semantic && !h.retrievers.semantic.imputed);
    },
    120_000,
    'every abstract embedded',
  );
  return { person, windTunnel, heatLab, ids };
}

const isSearch = (r: Request) => r.method() === 'POST' && new URL(r.url()).pathname === '/artifacts/search';

/** Does `action`, waits for the search it makes and its answer; returns the body the page sent. */
async function searched(page: Page, action: () => Promise<unknown>): Promise<Record<string, unknown>> {
  const [request] = await Promise.all([page.waitForRequest(isSearch), action()]);
  await request.response();
  return request.postDataJSON() as Record<string, unknown>;
}

const resultsList = (page: Page) => page.getByRole('list', { name: 'Search results' });
const shownTitles = (page: Page) => resultsList(page).locator('a.result-link').allTextContents();

/** The API's answer to `body`, and the page once it shows those results in that order. */
async function showsApiAnswer(page: Page, api: Api, body: Record<string, unknown>): Promise<Hit[]> {
  const reply = await api.post('/artifacts/search', body);
  assert.equal(reply.status, 200, reply.text);
  const hits = reply.body.results as Hit[];
  const expected = hits.map((h) => h.title);
  await eventually(
    async () => JSON.stringify(await shownTitles(page)) === JSON.stringify(expected),
    15_000,
    `the page showing ${expected.length} results`,
  ).catch(async (err: Error) => {
    assert.deepEqual(await shownTitles(page), expected, err.message);
  });
  return hits;
}

const resultFor = (page: Page, id: string) => resultsList(page).locator(`li[data-artifact-id="${id}"]`);

describe('the search page of the web console', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let data: Corpus;

  before(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    data = await corpus(platform);
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('searches as one types, with each result’s type, container, marked snippet, how it was found and why', async () => {
    const { person, ids, heatLab } = data;
    const { context, page, dialogs } = await consolePage(browser);
    const chunks: string[] = [];
    page.on('response', async (res) => {
      if (/\/console\/assets\/chunk-[^/]+\.js$/.test(res.url())) chunks.push(await res.text().catch(() => ''));
    });
    await signIn(page, platform, person, '/console/');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    assert.ok(!chunks.some((c) => c.includes('Why this result')), 'the overview does not load the search page');

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Search' }).click();
    await page.waitForURL(`${platform.url}/console/search`);
    const box = page.getByRole('search', { name: 'Search artifacts' }).getByLabel('Search for');
    await box.waitFor();
    await eventually(async () => chunks.some((c) => c.includes('Why this result')), 10_000, 'the search page as a chunk of its own');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'search-page-query', 'the box has the focus');

    // Typing: a search once the typing pauses, not one a keystroke (a busy machine may pause mid-word
    // once or twice); the address holds the query.
    const sent: string[] = [];
    page.on('request', (r) => isSearch(r) && sent.push((r.postDataJSON() as { query: string }).query));
    const typed = page.waitForRequest((r) => isSearch(r) && (r.postDataJSON() as { query: string }).query === 'heat transfer');
    await box.pressSequentially('heat transfer', { delay: 30 });
    const request = await typed;
    await request.response();
    const body = request.postDataJSON() as Record<string, unknown>;
    assert.deepEqual(body, { query: 'heat transfer', preset: 'balanced', limit: 10, aperture: { enabled: true } });
    await page.waitForURL(`${platform.url}/console/search?q=heat+transfer`);
    const hits = await showsApiAnswer(page, person.api, body);
    assert.ok(sent.length <= 3, `searches while typing 13 keys: ${JSON.stringify(sent)}`);
    assert.equal(sent.at(-1), 'heat transfer');

    // The count, announced politely.
    const count = page.getByTestId('search-count');
    assert.equal(await count.getAttribute('aria-live'), 'polite');
    assert.equal(await count.textContent(), `${hits.length} results for “heat transfer”`);

    // A result found both ways: its type, container, snippet with the query's words marked, and why.
    const both = hits.find((h) => h.retrievers.lexical && h.retrievers.semantic)!;
    assert.ok(both, 'a result found by words and meaning');
    const slipFlow = resultFor(page, ids.get(21)!);
    await slipFlow.getByText('Heat lab').waitFor();
    assert.equal(await slipFlow.locator('.type-label').textContent(), 'Text');
    assert.equal(await slipFlow.getByRole('link', { name: 'Heat lab' }).getAttribute('href'), `/console/workspaces/${heatLab}`);
    await slipFlow.getByTestId('snippet').waitFor();
    const marked = (await slipFlow.locator('.snippet mark').allTextContents()).map((m) => m.toLowerCase());
    assert.ok(marked.includes('heat') && marked.includes('transfer'), `marked: ${marked.join(', ')}`);
    assert.equal(await resultFor(page, ids.get(22)!).locator('.type-label').textContent(), 'Markdown');

    const hit21 = hits.find((h) => h.id === ids.get(21))!;
    assert.ok(hit21.retrievers.lexical && hit21.retrievers.semantic, 'paper 21 is found both ways');
    assert.equal(await slipFlow.getByTestId('found-by').textContent(), 'Matched your words and similar in meaning');
    const why = slipFlow.locator('details.why');
    assert.equal(await why.getAttribute('open'), null, 'the details start folded');
    await why.getByText('Why this result').click();
    const explained = await why.innerText();
    assert.match(
      explained,
      new RegExp(
        `Word match \\(BM25\\): ranked ${ordinal(hit21.retrievers.lexical.rank)} of \\d+, score ${hit21.retrievers.lexical.score.toFixed(3)}`,
      ),
    );
    assert.match(
      explained,
      new RegExp(
        `Meaning \\(vectors, [^)]+\\): ranked ${ordinal(hit21.retrievers.semantic.rank)} of \\d+ kept, similarity ${hit21.retrievers.semantic.score.toFixed(3)}`,
      ),
    );
    assert.match(
      explained,
      new RegExp(
        `Reciprocal Rank Fusion\\): 1 / \\(60 \\+ ${hit21.retrievers.lexical.rank}\\) \\+ [\\d.]+ / \\(60 \\+ ${hit21.retrievers.semantic.rank}\\) = ${hit21.score.toFixed(4)}`,
      ),
    );

    // Found by meaning alone: said so, and why.
    const meaningOnly = hits.find((h) => !h.retrievers.lexical && h.retrievers.semantic);
    assert.ok(meaningOnly, `a result found by meaning alone: ${JSON.stringify(hits.map((h) => h.retrievers))}`);
    const byMeaning = resultFor(page, meaningOnly.id);
    assert.equal(await byMeaning.getByTestId('found-by').textContent(), 'Similar in meaning');
    await byMeaning.locator('summary').click();
    assert.match(await byMeaning.locator('details.why').innerText(), /Word match \(BM25\): none of your words appear in it/);

    // Found by words alone, in another search.
    const flat = await searched(page, () => box.fill('heat transfer to a flat plate'));
    const flatHits = await showsApiAnswer(page, person.api, flat);
    const wordsOnly = flatHits.find((h) => h.retrievers.lexical && !h.retrievers.semantic);
    assert.ok(wordsOnly, `a result found by words alone: ${JSON.stringify(flatHits.map((h) => h.retrievers))}`);
    assert.equal(await resultFor(page, wordsOnly.id).getByTestId('found-by').textContent(), 'Matched your words');

    // The keyboard: from the box, arrows move through the results' links and back.
    await box.focus();
    await box.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), flatHits[0]!.title);
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), flatHits[1]!.title);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'search-page-query');
    assert.deepEqual(dialogs, []);
    await context.close();
  });

  it('sends every control to the API and shows what it answers; the address keeps the state for back, forward and sharing', async () => {
    const { person, heatLab, windTunnel, ids } = data;
    const { context, page } = await consolePage(browser);
    const base = await searched(page, () => signIn(page, platform, person, '/console/search?q=heat+transfer'));
    const balanced = await showsApiAnswer(page, person.api, base);
    // The controls start folded for a plain search; their summary says what a search changes.
    const refine = page.locator('details.refine');
    assert.equal(await refine.getAttribute('open'), null);
    await refine.locator(':scope > summary').click();

    // Preset: the request names it, and the ranking is the one the API gives for it (not the balanced one).
    const descFirst = await searched(page, () => page.getByRole('radio', { name: /Description first/ }).check());
    assert.equal(descFirst.preset, 'description-first');
    await page.waitForURL(/preset=description-first/);
    const described = await showsApiAnswer(page, person.api, descFirst);
    assert.equal(await refine.locator(':scope > summary').innerText(), 'Ranking and filters (description first)');
    const lexScores = (hits: Hit[]) => hits.map((h) => `${h.title}:${h.retrievers.lexical?.score ?? '-'}`).join('|');
    assert.notEqual(lexScores(described), lexScores(balanced), 'the preset changes the BM25 scores');
    const first = resultFor(page, described[0]!.id);
    await first.locator('summary').click();
    assert.match(await first.locator('details.why').innerText(), new RegExp(`score ${described[0]!.retrievers.lexical!.score.toFixed(3)}`));

    // Back: the balanced search again, its radio checked; forward: description first again.
    await searched(page, () => page.goBack());
    assert.equal(new URL(page.url()).search, '?q=heat+transfer');
    await showsApiAnswer(page, person.api, base);
    assert.ok(await page.getByRole('radio', { name: /Balanced/ }).isChecked());
    await searched(page, () => page.goForward());
    await showsApiAnswer(page, person.api, descFirst);
    assert.ok(await page.getByRole('radio', { name: /Description first/ }).isChecked());

    // The aperture off keeps every neighbour: more results than with it on.
    const open = await searched(page, () => page.getByRole('checkbox', { name: /Leave out loosely related meanings/ }).uncheck());
    assert.deepEqual(open.aperture, { enabled: false });
    await page.waitForURL(/aperture=off/);
    await page.getByLabel('Results at most').fill('50');
    const wide = await searched(page, () => page.getByLabel('Results at most').press('Enter'));
    assert.equal(wide.limit, 50);
    const all = await showsApiAnswer(page, person.api, wide);
    const narrowed = (await person.api.post('/artifacts/search', { ...wide, aperture: { enabled: true } })).body.results as Hit[];
    assert.ok(all.length > narrowed.length, `aperture off: ${all.length} results, on: ${narrowed.length}`);
    assert.match(
      await page.getByTestId('search-summary').innerText(),
      new RegExp(`${all.length} of the ${all.length} closest in meaning kept \\(vectors, [^,]+, aperture off\\)`),
    );

    // The limit.
    await page.getByLabel('Results at most').fill('3');
    const three = await searched(page, () => page.getByLabel('Results at most').press('Enter'));
    assert.equal(three.limit, 3);
    assert.equal((await showsApiAnswer(page, person.api, three)).length, 3);

    // A workspace ticked: only its artifacts.
    await page.getByLabel('Results at most').fill('');
    await searched(page, () => page.getByLabel('Results at most').press('Enter'));
    const lab = await searched(page, () => page.getByRole('checkbox', { name: /Heat lab/ }).check());
    assert.deepEqual(lab.workspace_ids, [heatLab]);
    const inLab = await showsApiAnswer(page, person.api, lab);
    assert.deepEqual(new Set(inLab.map((h) => h.id)), new Set([ids.get(21), ids.get(22)]));

    // A content type: only artifacts of that type.
    const typeBox = page.getByLabel('Only these content types');
    await typeBox.fill('text/markdown');
    const markdown = await searched(page, () => typeBox.press('Enter'));
    assert.deepEqual(markdown.content_types, ['text/markdown']);
    assert.deepEqual(
      (await showsApiAnswer(page, person.api, markdown)).map((h) => h.id),
      [ids.get(22)],
    );

    // Shared: the address opens the same search, controls and all, in another browser.
    const shared = page.url();
    assert.match(shared, new RegExp(`workspace=${heatLab}.*type=text%2Fmarkdown|type=text%2Fmarkdown.*workspace=${heatLab}`));
    const other = await consolePage(browser);
    assert.deepEqual(await searched(other.page, () => signIn(other.page, platform, person, shared.slice(platform.url.length))), markdown);
    await showsApiAnswer(other.page, person.api, markdown);
    assert.notEqual(await other.page.locator('details.refine').getAttribute('open'), null, 'a shared search shows its controls');
    assert.equal(
      await other.page.locator('details.refine > summary').innerText(),
      'Ranking and filters (description first; aperture off; 1 place; text/markdown)',
    );
    assert.ok(await other.page.getByRole('radio', { name: /Description first/ }).isChecked());
    assert.ok(!(await other.page.getByRole('checkbox', { name: /Leave out loosely related meanings/ }).isChecked()));
    assert.ok(await other.page.getByRole('checkbox', { name: /Heat lab/ }).isChecked());
    assert.ok(!(await other.page.getByRole('checkbox', { name: /Wind tunnel notes/ }).isChecked()));
    assert.equal(await other.page.getByLabel('Only these content types').inputValue(), 'text/markdown');
    await other.context.close();

    // Nothing matches: said, with a way back to everywhere.
    await typeBox.fill('application/x-nothing-here');
    const none = await searched(page, () => typeBox.press('Enter'));
    await page.getByTestId('search-empty').getByText('Nothing matched “heat transfer”.').waitFor();
    assert.equal(await page.getByTestId('search-count').textContent(), '0 results for “heat transfer”');
    assert.deepEqual(none.content_types, ['application/x-nothing-here']);
    const everywhere = await searched(page, () => page.getByRole('button', { name: 'Search everywhere instead' }).click());
    assert.equal(everywhere.workspace_ids, undefined);
    assert.equal(everywhere.content_types, undefined);
    assert.ok((await showsApiAnswer(page, person.api, everywhere)).some((h) => h.container.id === windTunnel));

    // Refused: the problem+json's detail and what to change, and no results.
    await page.getByLabel('Results at most').fill('500');
    const tooMany = await searched(page, () => page.getByLabel('Results at most').press('Enter'));
    const refused = await person.api.post('/artifacts/search', tooMany);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.type, 'urn:platform:problem:validation-error');
    const alert = page.getByTestId('search-error');
    await alert.waitFor();
    assert.equal(await alert.getAttribute('role'), 'alert');
    assert.match(await alert.innerText(), new RegExp(escape(refused.body.detail as string)));
    const param = (refused.body.invalid_params as { name: string; reason: string }[])[0]!;
    assert.match(
      await alert.getByRole('list', { name: 'What to change' }).innerText(),
      new RegExp(escape(`${param.name}: ${param.reason}`)),
    );
    assert.equal(await resultsList(page).count(), 0);
    await context.close();
  });

  it('a container’s search box leads to the search page with its query and container', async () => {
    const { person, heatLab, ids } = data;
    const { context, page } = await consolePage(browser);
    await signIn(page, platform, person, `/console/workspaces/${heatLab}`);
    await page.getByLabel(/Search this/).fill('slip flow');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('table', { name: 'Search results' }).waitFor();
    const body = await searched(page, () => page.getByRole('link', { name: 'Search with more options' }).click());
    assert.equal(new URL(page.url()).pathname, '/console/search');
    assert.deepEqual(body.workspace_ids, [heatLab]);
    assert.equal(body.query, 'slip flow');
    assert.ok(await page.getByRole('checkbox', { name: /Heat lab/ }).isChecked());
    assert.deepEqual(new Set((await showsApiAnswer(page, person.api, body)).map((h) => h.id)), new Set([ids.get(21), ids.get(22)]));
    await context.close();
  });
});

function ordinal(n: number): string {
  const tens = n % 100;
  return `${n}${tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
