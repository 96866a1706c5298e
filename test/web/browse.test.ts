// Browsing in the web console (issue #20), in headless Chromium: the overview lists workspaces and
// collections; a workspace shows its artifacts and searches them, each result with its fused score
// and the rank each retriever gave it; an artifact opens rendered by its type (markdown as elements,
// JSON pretty-printed, a PNG as an image that loads); a collection shows its versions. Markup in a
// title or a markdown document, javascript: links and event-handler payloads run nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { agentId } from '../../src/invocations/agents/registry.js';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, draft, newPerson, probe, signIn, type Person } from '../helpers/console.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { renderMarkdown, safeHref } from '../../web/console/markdown.js';

/** A 1×1 PNG. */
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const survey = [
  '# Harbour survey',
  '',
  'The *north* pier and the **south** pier.',
  '',
  '- north pier',
  '- south pier',
  '',
  '[Site](https://example.org/site)',
].join('\n');

async function create(api: Api, ws: string, body: Record<string, unknown>): Promise<string> {
  const reply = await api.post('/artifacts', { collection_id: ws, ...body });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id as string;
}

interface Hit {
  id: string;
  score: number;
  retrievers: { lexical?: { rank: number; score: number }; semantic?: { rank: number; score: number; imputed?: true } };
}

/**
 * Waits until both retrievers find `id` for `query` in the container: its embedding is stored (a moment
 * after the write; until then its semantic entry is only imputed from its lexical rank).
 */
async function indexed(api: Api, scope: Record<string, string[]>, query: string, id: string): Promise<Hit> {
  return eventually(
    async () => {
      const reply = await api.post('/artifacts/search', { query, ...scope });
      const hit = (reply.body.results as Hit[] | undefined)?.find((r) => r.id === id);
      return hit?.retrievers.lexical && hit.retrievers.semantic && !hit.retrievers.semantic.imputed ? hit : null;
    },
    60_000,
    `${id} found by both retrievers`,
  );
}

/** A new page that records dialogs and whether a probe's script ran. */
async function trappedPage(browser: Browser) {
  return consolePage(browser, {}, (context) => context.addInitScript(() => Object.assign(window, { __xss: 0 })));
}

/** Goes to a console path the way the console's links do (a reload would sign in again, through the sign-in page). */
async function inConsole(page: Page, path: string) {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
}

async function searchFor(page: Page, query: string) {
  await page.getByLabel(/Search this/).fill(query);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('table', { name: 'Search results' }).waitFor();
}

describe('browsing workspaces, collections and artifacts in the web console', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let person: Person;

  before(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    person = await newPerson(platform);
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('lists workspaces and collections, shows a workspace’s artifacts, and opens markdown, JSON and a PNG by type', async () => {
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Field notes', description: 'Notes from the harbour.' })).body.id as string;
    assert.equal((await api.post('/collections', { name: 'Harbour archive' })).status, 201);
    const doc = await draft(api, ws, 'Harbour survey', survey);
    const settings = { depth: 12, piers: ['north', 'south'] };
    const json = await create(api, ws, { title: 'Survey settings', content_type: 'application/json', content: JSON.stringify(settings) });
    const image = await create(api, ws, { title: 'Pier photo', content_type: 'image/png', content: png, context: { encoding: 'base64' } });

    const { context, page } = await trappedPage(browser);
    await signIn(page, platform, person, '/console/');
    await page.getByRole('list', { name: 'Your collections' }).getByRole('link', { name: 'Harbour archive' }).waitFor();
    await page.getByRole('list', { name: 'Your workspaces' }).getByRole('link', { name: 'Field notes' }).click();
    await page.waitForURL(`${platform.url}/console/workspaces/${ws}`);
    await page.getByRole('heading', { level: 1, name: 'Workspace: Field notes' }).waitFor();
    await page.getByText('Notes from the harbour.').waitFor();

    const artifacts = page.getByRole('list', { name: 'Artifacts' });
    await artifacts.getByRole('link', { name: 'Pier photo' }).waitFor();
    assert.equal(await artifacts.getByRole('listitem').count(), 3);
    assert.match(
      await artifacts.getByRole('listitem').filter({ hasText: 'Survey settings' }).innerText(),
      /JSON[\s\S]*Survey settings[\s\S]*draft · revision 1/,
    );
    // The workspace's events (their own component) are on the page.
    await page
      .getByRole('heading', { level: 2, name: /events/i })
      .first()
      .waitFor();

    // Markdown: a heading, emphasis and a list as elements; the link with a safe href and no referrer.
    await artifacts.getByRole('link', { name: 'Harbour survey' }).click();
    await page.waitForURL(`${platform.url}/console/artifacts/${doc}`);
    const body = page.locator('.markdown');
    await body.getByRole('heading', { name: 'Harbour survey' }).waitFor();
    assert.equal(await body.locator('h2').textContent(), 'Harbour survey');
    assert.equal(await body.locator('em').textContent(), 'north');
    assert.equal(await body.locator('strong').textContent(), 'south');
    assert.deepEqual(await body.locator('ul > li').allTextContents(), ['north pier', 'south pier']);
    const site = body.getByRole('link', { name: 'Site' });
    assert.equal(await site.getAttribute('href'), 'https://example.org/site');
    assert.equal(await site.getAttribute('rel'), 'noopener noreferrer');
    // Back to the workspace through its name.
    await page.getByTestId('artifact-container').getByText('Field notes').waitFor();
    assert.match(
      await page.locator('.facts').first().innerText(),
      /Type\s+\S*\s*Markdown\s+text\/markdown[\s\S]*State\s+draft[\s\S]*Revision\s+1/,
    );

    // JSON, pretty-printed (back to the workspace through the page's links: a reload would sign out).
    await page.getByTestId('artifact-container').click();
    await artifacts.getByRole('link', { name: 'Survey settings' }).click();
    await page.waitForURL(`${platform.url}/console/artifacts/${json}`);
    await page.getByRole('heading', { level: 1, name: 'Survey settings' }).waitFor();
    assert.equal(await page.getByLabel('Content (JSON)').textContent(), JSON.stringify(settings, null, 2));

    // A PNG stored base64: an <img> from a blob: URL that the browser decodes.
    await page.getByRole('link', { name: '← Field notes' }).click();
    await artifacts.getByRole('link', { name: 'Pier photo' }).click();
    await page.waitForURL(`${platform.url}/console/artifacts/${image}`);
    const img = page.getByRole('img', { name: 'Pier photo' });
    await img.waitFor();
    assert.match((await img.getAttribute('src')) ?? '', /^blob:/);
    await page.waitForFunction(() => {
      const el = document.querySelector('figure.media img') as HTMLImageElement | null;
      return el !== null && el.complete;
    });
    assert.equal(await img.evaluate((el: HTMLImageElement) => el.naturalWidth), 1);
    assert.match((await page.getByLabel('Context (JSON)').textContent()) ?? '', /"encoding": "base64"/);

    // A built-in agent cannot be opened (no container): the page reads it with GET instead.
    await inConsole(page, `/console/artifacts/${agentId('tag-keywords')}`);
    await page.getByRole('heading', { level: 1, name: 'Tag by keywords' }).waitFor();
    await page.getByLabel('Content (JSON)').waitFor();
    assert.match((await page.getByLabel('Content (JSON)').textContent()) ?? '', /\n {2}"/);
    await context.close();
  });

  it('searches a workspace and shows the fused score and each retriever’s rank as the API gives them', async () => {
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Lighthouse' })).body.id as string;
    const lamp = await draft(api, ws, 'Lamp maintenance', 'Clean the lighthouse lamp lens every week and replace the bulb.');
    await draft(api, ws, 'Rota', 'Who keeps watch on which night.');
    const other = (await api.post('/workspaces', { name: 'Elsewhere' })).body.id as string;
    const outside = await draft(api, other, 'Lamp maintenance elsewhere', 'Clean the lamp lens.');
    const hit = await indexed(api, { workspace_ids: [ws] }, 'lamp lens', lamp);

    const { context, page } = await trappedPage(browser);
    await signIn(page, platform, person, `/console/workspaces/${ws}`);
    await page.getByRole('heading', { level: 1, name: 'Workspace: Lighthouse' }).waitFor();
    await searchFor(page, 'lamp lens');
    const row = page.locator(`tr[data-artifact-id="${lamp}"]`);
    await row.waitFor();
    assert.equal(await row.getByRole('link').textContent(), 'Lamp maintenance');
    assert.equal(await row.getByTestId('fused').textContent(), hit.score.toFixed(4));
    assert.equal(
      await row.getByTestId('lexical').textContent(),
      `${hit.retrievers.lexical!.rank} (${hit.retrievers.lexical!.score.toFixed(3)})`,
    );
    assert.equal(
      await row.getByTestId('semantic').textContent(),
      `${hit.retrievers.semantic!.rank} (${hit.retrievers.semantic!.score.toFixed(3)})`,
    );
    // Scoped to this workspace: the other workspace's lamp is not there.
    assert.equal(await page.locator(`tr[data-artifact-id="${outside}"]`).count(), 0);
    assert.match(
      (await page.getByRole('status').filter({ hasText: 'for “lamp lens”' }).textContent()) ?? '',
      /\d+ results? for “lamp lens”/,
    );

    // A result opens its artifact.
    await row.getByRole('link').click();
    await page.waitForURL(`${platform.url}/console/artifacts/${lamp}`);
    await page.getByRole('heading', { level: 1, name: 'Lamp maintenance' }).waitFor();
    await context.close();
  });

  it('shows a collection’s committed artifacts with their versions and searches within it', async () => {
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Tide drafts' })).body.id as string;
    const col = (await api.post('/collections', { name: 'Tide tables' })).body.id as string;
    await draft(api, ws, 'Spring tides', 'High water at the spring tides comes at noon.');
    const requested = await api.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'Tides' });
    assert.equal(requested.status, 202, requested.text);
    const commit = requested.body.id as string;
    await eventually(async () => (await api.get(`/commits/${commit}`)).body.state === 'awaiting_approval', 30_000, 'awaiting approval');
    assert.equal((await api.post(`/commits/${commit}/approve`, {})).status, 200);
    const committed = await eventually(async () => {
      const c = (await api.get(`/commits/${commit}`)).body;
      return c.state === 'committed' ? (c.results as { artifact_id: string; version: number }[]) : null;
    }, 30_000);
    const id = committed[0]!.artifact_id;
    const hit = await indexed(api, { collection_ids: [col] }, 'spring tides', id);

    const { context, page } = await trappedPage(browser);
    await signIn(page, platform, person, `/console/collections/${col}`);
    await page.getByRole('heading', { level: 1, name: 'Collection: Tide tables' }).waitFor();
    const item = page.getByRole('list', { name: 'Artifacts' }).getByRole('listitem');
    await item.getByRole('link', { name: 'Spring tides' }).waitFor();
    assert.match(await item.innerText(), /Markdown[\s\S]*Spring tides[\s\S]*committed · version 1/);
    assert.equal(await page.getByRole('heading', { name: /events/i }).count(), 0, 'a collection has no event feed');

    await searchFor(page, 'spring tides');
    const row = page.locator(`tr[data-artifact-id="${id}"]`);
    await row.waitFor();
    assert.equal(await row.getByTestId('fused').textContent(), hit.score.toFixed(4));

    await item.getByRole('link', { name: 'Spring tides' }).click();
    await page.getByRole('heading', { level: 1, name: 'Spring tides' }).waitFor();
    await page.getByTestId('artifact-container').getByText('Tide tables').waitFor();
    assert.match(await page.locator('.facts').first().innerText(), /State\s+committed[\s\S]*Version\s+1[\s\S]*Collection\s+Tide tables/);
    await context.close();
  });

  it('runs nothing from a title or a markdown document: markup stays text, unsafe links lose their href', async () => {
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: `Probe ${probe}` })).body.id as string;
    const title = `<script>window.__xss = 1</script>${probe}<svg onload=alert(2)>`;
    const markdown = [
      `# Heading ${probe}`,
      '',
      '<script>window.__xss = 1; alert(3)</script>',
      '',
      '<img src=x onerror="window.__xss = 1; alert(4)">',
      '',
      '[click me](javascript:window.__xss=1)',
      '',
      '[upper](JaVaScRiPt:alert(5)) [spaced]( javascript:alert(6) ) [data](data:text/html,<script>alert(7)</script>)',
      '',
      '<a href="javascript:alert(8)" onclick="alert(9)">raw link</a> <div onmouseover="alert(10)">hover</div>',
      '',
      '![pic" onerror="alert(11)](x" onerror="alert(11))',
      '',
      '[quoted](https://example.org/ "x\\" onmouseover=\\"alert(12)")',
      '',
      '- item <b onclick=alert(13)>bold</b>',
      '',
      '`<img src=x onerror=alert(14)>`',
    ].join('\n');
    const id = await draft(api, ws, title, markdown);

    const { context, page, dialogs } = await trappedPage(browser);
    await signIn(page, platform, person, `/console/workspaces/${ws}`);
    await page.getByRole('list', { name: 'Artifacts' }).getByRole('link', { name: title }).click();
    await page.waitForURL(`${platform.url}/console/artifacts/${id}`);
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    const body = page.locator('.markdown');
    await body.locator('h2').waitFor();
    assert.equal(await body.locator('h2').textContent(), `Heading ${probe}`);
    await body.getByText('click me').waitFor();
    // Hover and click what an attacker would want hovered and clicked.
    await body.getByText('hover').hover();
    await body.getByText('click me').click();
    await body.getByText('raw link').click();

    const found = await page.evaluate(() => {
      const all = [...document.querySelectorAll('*')];
      return {
        handlers: all.filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).map((el) => el.outerHTML),
        scripts: document.querySelectorAll('main script, main svg, main img, main iframe').length,
        hrefs: [...document.querySelectorAll('main a[href]')].map((a) => (a as HTMLAnchorElement).href),
        xss: (window as unknown as { __xss: number }).__xss,
      };
    });
    assert.deepEqual(found.handlers, []);
    assert.equal(found.scripts, 0);
    assert.equal(found.xss, 0);
    for (const href of found.hrefs) assert.match(href, /^(https?:|mailto:)/, href);
    // The javascript: link is text without an href; the safe link keeps its title as a title.
    assert.equal(await body.getByText('click me').evaluate((el) => el.tagName), 'SPAN');
    assert.equal(await body.getByText('click me').getAttribute('href'), null);
    assert.equal(await body.getByRole('link', { name: 'quoted' }).getAttribute('href'), 'https://example.org/');
    assert.match(await body.innerText(), /<script>window.__xss = 1; alert\(3\)<\/script>/);
    assert.equal(await body.locator('code').first().textContent(), '<img src=x onerror=alert(14)>');
    // The page is still the artifact's (no navigation), and no dialog opened.
    assert.equal(page.url(), `${platform.url}/console/artifacts/${id}`);
    assert.deepEqual(dialogs, []);
    await context.close();
  });
});

/** The renderer's output as markup, for reading: tags and attributes as built, text escaped. */
function markup(node: unknown): string {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  if (Array.isArray(node)) return node.map(markup).join('');
  const { type, props } = node as { type: unknown; props: Record<string, unknown> };
  const { children, ...attributes } = props;
  const attrs = Object.entries(attributes)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}=${JSON.stringify(v)}`)
    .join('');
  return typeof type === 'string' ? `<${type}${attrs}>${markup(children)}</${type}>` : markup(children);
}
const md = (source: string) => markup(renderMarkdown(source));

describe('the console’s markdown renderer', () => {
  it('builds headings, emphasis, code, lists, quotes and safe links as elements', () => {
    assert.equal(md('# T\n\nA *b* **c** ~~d~~ `<e>`'), '<h2>T</h2><p>A <em>b</em> <strong>c</strong> <del>d</del> <code>&lt;e></code></p>');
    assert.equal(md('- a\n  - b\n- c'), '<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>');
    assert.equal(md('3. x\n4. y'), '<ol start=3><li>x</li><li>y</li></ol>');
    assert.equal(md('> q\n> r'), '<blockquote><p>q\nr</p></blockquote>');
    assert.equal(md('```js\n<b>\n```'), '<pre class="md-code"><code data-lang="js">&lt;b></code></pre>');
    assert.equal(
      md('[s](https://e.org/a "t")'),
      '<p><a href="https://e.org/a" title="t" rel="noopener noreferrer" target="_blank">s</a></p>',
    );
  });

  it('keeps only http, https and mailto hrefs, and raw HTML as text', () => {
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:x',
      'data:text/html,x',
      'vbscript:x',
      '/relative',
      '//host/x',
    ])
      assert.equal(safeHref(bad), null, bad);
    assert.equal(safeHref('mailto:a@b.c'), 'mailto:a@b.c');
    assert.match(md('[x](javascript:alert(1))'), /^<p><span class="md-unsafe-link"[^>]*>x<\/span><\/p>$/);
    assert.equal(md('<img src=x onerror=alert(1)>'), '<p>&lt;img src=x onerror=alert(1)></p>');
  });

  it('renders hostile nesting and unclosed delimiters in bounded time', () => {
    for (const source of ['>'.repeat(50_000), '['.repeat(50_000), ' *a'.repeat(50_000), '`a``'.repeat(25_000), '- '.repeat(5_000) + 'x']) {
      assert.ok(md(source).length > 0);
    }
  });
});
