// The console's look (issue #37), in headless Chromium, and the screenshots the README and
// docs/console.md show (UPDATE_SCREENSHOTS=1 writes them to docs/screenshots/). A platform seeded as a
// person would have it: a workspace of reading notes (abstracts from the Cranfield collection), a
// collection they were committed to, a commit awaiting approval with a diff, an invocation awaiting a
// decision. Each page is taken in light and in dark (the system's choice, emulated), and the phone
// width (375 px) is checked for horizontal overflow.
import { readdirSync, statSync } from 'node:fs';
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { agentId } from '../../src/invocations/agents/registry.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { consolePage, draft, newPerson, signIn, type Person } from '../helpers/console.js';
import { eventually } from '../helpers/http.js';
import { requestCommit } from '../helpers/commit.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

// Abstracts from the Cranfield collection (aeronautics, public research data), as a reader's notes.
const notes = [
  {
    title: 'Wing in a propeller slipstream',
    content:
      '# Wing in a propeller slipstream\n\n*Brenckman, J. Ae. Scs. 25, 1958* · Cranfield 1\n\n' +
      'An experimental study of a wing in a propeller slipstream, made to determine the **spanwise distribution of the lift increase** ' +
      'due to slipstream at different angles of attack and at different free stream to slipstream velocity ratios.\n\n' +
      '## Why it matters\n\n- an evaluation basis for theoretical treatments of the problem\n- lift increase depends on the velocity ratio\n',
  },
  {
    title: 'Boundary layer in simple shear flow',
    content:
      '# The boundary layer in simple shear flow past a flat plate\n\n*M. B. Glauert, University of Manchester* · Cranfield 3\n\n' +
      'The boundary-layer equations are presented for steady incompressible flow with no pressure gradient.\n',
  },
  {
    title: 'Transient heat flow in a multilayer slab',
    content:
      '# One-dimensional transient heat flow in a multilayer slab\n\n*Campbell, J. Ae. Scs. 25, 1958* · Cranfield 6\n\n' +
      'Analytic solutions for the temperature in a double layer slab, with a triangular heat rate input at one face, ' +
      'insulated at the other, and with no thermal resistance at the interface.\n',
  },
  {
    title: 'Roughness and transition at supersonic speeds',
    content:
      '# Controlled three-dimensional roughness and boundary layer transition\n\n*Van Driest and McCauley, J. Ae. Scs. 27, 1960* · Cranfield 7\n\n' +
      'Experiments in the 12-in. supersonic wind tunnel of the Jet Propulsion Laboratory on the effect of three-dimensional ' +
      'roughness elements (spheres) on boundary-layer transition, at local Mach numbers of 1.90, 2.71 and 3.67.\n',
  },
];
const later = {
  title: 'Structural considerations of high speed flight',
  content:
    '# Some structural and aeroelastic considerations of high speed flight\n\n*Bisplinghoff, J. Ae. Scs. 23, 1956* · Cranfield 12\n\n' +
    'The dominating factors in structural design of high-speed aircraft are **thermal and aeroelastic** in origin.\n',
};

/** The page's background colour as drawn (the body's computed background). */
const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

/** How far the page is wider than its viewport (0: no horizontal scrolling). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The innermost elements that reach past the viewport's right edge, to say what overflows. */
const overflowing = (page: Page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > width + 0.5);
    return wide
      .filter((e) => !wide.some((other) => other !== e && e.contains(other)))
      .map(
        (e) =>
          `<${e.tagName.toLowerCase()} ${[...e.attributes].map((a) => `${a.name}="${a.value}"`).join(' ')}> (${Math.round(e.getBoundingClientRect().right)} px)`,
      )
      .slice(0, 5);
  });

describe("the console's look, with the screenshots the docs show", () => {
  let platform: TestPlatform;
  let browser: Browser;
  let person: Person;
  let page: Page;
  const seeded = { ws: '', col: '', commit: '', invocation: '', artifact: '' };

  before(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    person = await newPerson(platform);
    const { api } = person;
    seeded.ws = (await api.post('/workspaces', { name: 'Aerodynamics reading notes' })).body.id as string;
    seeded.col = (await api.post('/collections', { name: 'Boundary-layer papers' })).body.id as string;
    const ids: string[] = [];
    for (const note of notes) ids.push(await draft(api, seeded.ws, note.title, note.content));
    const first = await requestCommit(api, seeded.ws, seeded.col, 'Four papers from the Cranfield reading list');
    assert.equal((await api.post(`/commits/${first}/approve`, { comment: 'Good first batch' })).status, 200);
    await eventually(async () => (await api.get(`/commits/${first}`)).body.state === 'committed', 30_000, 'first commit');
    // A note grows a section and a new one joins: the commit awaiting approval has a diff.
    const revised = `${notes[1]!.content}\n## Notes\n\n- the shear makes the outer flow rotational\n- compare with Cranfield 4 (Yen)\n`;
    assert.equal((await api.patch(`/artifacts/${ids[1]}`, { content: revised })).status, 200);
    await draft(api, seeded.ws, later.title, later.content);
    seeded.commit = await requestCommit(api, seeded.ws, seeded.col, 'Add aeroelastic notes and a reading of Glauert');
    const committed = (await api.get(`/artifacts?collection_id=${seeded.col}`)).body.items as { id: string; title: string }[];
    seeded.artifact = committed.find((a) => a.title === notes[0]!.title)!.id;
    const invoked = await api.post(`/artifacts/${agentId('tag-keywords')}/invoke`, {
      workspace_id: seeded.ws,
      params: { rules: { 'boundary layer': ['boundary', 'transition'], 'heat transfer': ['heat', 'thermal'] } },
    });
    assert.equal(invoked.status, 200, invoked.text);
    assert.equal(invoked.body.status, 'awaiting_decision');
    seeded.invocation = invoked.body.invocation_id as string;

    ({ page } = await consolePage(browser, { viewport: { width: 1280, height: 800 }, colorScheme: 'light' }));
    await signIn(page, platform, person, '/console/');
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  /** Opens `path` through the console's router (no reload: the session stays in memory). */
  async function open(path: string): Promise<void> {
    await page.evaluate((to) => {
      history.pushState(null, '', to);
      dispatchEvent(new PopStateEvent('popstate'));
    }, path);
    await page.waitForURL(`${platform.url}${path}`);
  }

  /** The paths of the screenshots this test took. */
  const taken = new Set<string>();

  /** The pages the docs also show in dark (the PNGs stay small: viewport only, < 1.5 MB in all). */
  const shownDark = new Set(['overview', 'artifact', 'commit']);

  /** The page in light and in dark, whose backgrounds differ, with its screenshots. */
  async function both(name: string, ready: () => Promise<unknown>): Promise<void> {
    await page.emulateMedia({ colorScheme: 'light' });
    await ready();
    const light = await background(page);
    taken.add(await screenshot(page, `console-${name}`, { fullPage: false }));
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await background(page);
    assert.notEqual(dark, light, `${name}: the dark background differs from the light one`);
    if (shownDark.has(name)) taken.add(await screenshot(page, `console-${name}-dark`, { fullPage: false }));
    await page.emulateMedia({ colorScheme: 'light' });
  }

  it('the overview: the commit awaiting approval and the workspaces', async () => {
    await both('overview', async () => {
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await page.getByRole('link', { name: 'Add aeroelastic notes and a reading of Glauert' }).waitFor();
    });
  });

  it('browsing a workspace: its notes, search and imports', async () => {
    await open(`/console/workspaces/${seeded.ws}`);
    await both('workspace', async () => {
      await page.getByRole('heading', { level: 1, name: 'Workspace: Aerodynamics reading notes' }).waitFor();
      await page.getByRole('list', { name: 'Artifacts' }).getByText(later.title).waitFor();
    });
  });

  it("a workspace's events, live", async () => {
    await page.getByRole('heading', { name: /^Events/ }).scrollIntoViewIfNeeded();
    await both('events', async () => {
      await page.getByTestId('events-status').getByText(/live/i).waitFor();
      await page.getByRole('list', { name: 'Workspace events, newest first' }).getByRole('listitem').first().waitFor();
    });
  });

  it('an artifact: a committed note, rendered', async () => {
    await open(`/console/artifacts/${seeded.artifact}`);
    await both('artifact', async () => {
      await page.getByRole('heading', { level: 1, name: notes[0]!.title }).waitFor();
      await page.locator('.markdown').getByRole('heading', { name: 'Why it matters' }).waitFor();
    });
  });

  it('the commit review, with its coloured diff', async () => {
    await open(`/console/commits/${seeded.commit}`);
    await both('commit', async () => {
      await page.getByRole('heading', { level: 1, name: 'Add aeroelastic notes and a reading of Glauert' }).waitFor();
      const added = page.locator('.diff-add', { hasText: 'the shear makes the outer flow rotational' });
      await added.waitFor();
      // The modified item and its diff in view, below the sticky header.
      await added.evaluate((e) => {
        e.closest('li')!.scrollIntoView({ block: 'start' });
        scrollBy(0, -80);
      });
    });
    // The added line reads in its own colours, in both themes (the palette's contrast is unit-tested).
    const added = page.locator('.diff-add').first();
    const colours = () => added.evaluate((e) => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor].join(' on '));
    const light = await colours();
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.notEqual(await colours(), light);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('an invocation awaiting a decision', async () => {
    await open(`/console/invocations/${seeded.invocation}`);
    await both('invocation', async () => {
      await page.getByRole('heading', { level: 1, name: 'Invocation of tag-keywords' }).waitFor();
      await page.getByRole('form', { name: 'Your decision' }).waitFor();
    });
  });

  it('the search page', async (t: TestContext) => {
    await open('/console/search');
    const heading = page.getByRole('heading', { level: 1 });
    await heading.waitFor();
    if (!/search/i.test(await heading.innerText())) {
      // Another part of issue #37 adds /console/search; until it is there the console shows the overview.
      t.skip('no search page at /console/search in this build');
      return;
    }
    await both('search', async () => {
      const box = page.getByRole('searchbox').first();
      await box.fill('boundary layer transition');
      await box.press('Enter');
      await page
        .getByText(/Roughness and transition|Boundary layer in simple shear flow/)
        .first()
        .waitFor();
      // The results in view, below the sticky header.
      await page.getByTestId('search-count').evaluate((e) => {
        e.scrollIntoView({ block: 'start' });
        scrollBy(0, -80);
      });
    });
  });

  it('settings', async () => {
    await open('/console/settings');
    await both('settings', async () => {
      await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
      await page.getByRole('heading', { level: 2, name: 'API keys' }).waitFor();
      await page.getByRole('form', { name: 'New server credential' }).waitFor();
    });
    // The header says where you are, to the eye and to a screen reader.
    const nav = page.getByRole('navigation', { name: 'Console' });
    assert.equal(await nav.getByRole('link', { name: 'Settings' }).getAttribute('aria-current'), 'page');
    assert.equal(await nav.getByRole('link', { name: 'Overview' }).getAttribute('aria-current'), null);
  });

  it('keeps a chosen theme over the system one, in localStorage, and goes back to the system one', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await background(page);
    const choice = page.getByLabel('Theme');
    await choice.selectOption('dark');
    const dark = await background(page);
    assert.notEqual(dark, light);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await page.evaluate(() => localStorage.getItem('platform-console.theme')), 'dark');
    // The choice wins over the system's: dark stays dark when the system says light, and the reverse.
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await background(page), dark);
    await choice.selectOption('light');
    assert.equal(await background(page), light, 'light chosen while the system is dark');
    await choice.selectOption('system');
    assert.equal(await background(page), dark, 'the system (dark) again');
    assert.equal(await page.evaluate(() => localStorage.getItem('platform-console.theme')), null);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('shows a visible focus ring on the keyboard', async () => {
    await page.getByRole('link', { name: 'Overview' }).focus();
    await page.keyboard.press('Tab');
    const ring = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement!);
      return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    assert.equal(ring.style, 'solid');
    assert.ok(ring.width >= 2, `outline ${ring.width}px`);
  });

  it('fits a phone (375 px): no horizontal scrolling, the navigation reachable', async () => {
    const phone = await consolePage(browser, {
      viewport: { width: 375, height: 740 },
      colorScheme: 'light',
      isMobile: true,
      hasTouch: true,
    });
    try {
      await signIn(phone.page, platform, person, `/console/commits/${seeded.commit}`);
      const pages: [string, () => Promise<unknown>][] = [
        [
          `/console/commits/${seeded.commit}`,
          () => phone.page.locator('.diff-add', { hasText: 'the shear makes the outer flow rotational' }).waitFor(),
        ],
        ['/console/', () => phone.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()],
        [`/console/workspaces/${seeded.ws}`, () => phone.page.getByRole('list', { name: 'Artifacts' }).waitFor()],
        [`/console/invocations/${seeded.invocation}`, () => phone.page.getByRole('form', { name: 'Your decision' }).waitFor()],
        ['/console/settings', () => phone.page.getByRole('heading', { level: 2, name: 'API keys' }).waitFor()],
      ];
      for (const [path, ready] of pages) {
        await phone.page.evaluate((to) => {
          history.pushState(null, '', to);
          dispatchEvent(new PopStateEvent('popstate'));
        }, path);
        await ready();
        assert.equal(await overflow(phone.page), 0, `${path} scrolls sideways at 375 px: ${(await overflowing(phone.page)).join(', ')}`);
        for (const name of ['Overview', 'Settings']) {
          const link = phone.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name });
          const box = await link.boundingBox();
          assert.ok(box && box.x >= 0 && box.x + box.width <= 375, `${name} is on screen at 375 px: ${JSON.stringify(box)}`);
        }
        if (path.startsWith('/console/commits/')) {
          // The diff on a phone: the modified note's item in view, below the header.
          await phone.page
            .locator('.diff-add')
            .first()
            .evaluate((e) => {
              e.closest('li')!.scrollIntoView({ block: 'start' });
              scrollBy(0, -130);
            });
          taken.add(await screenshot(phone.page, 'console-commit-phone', { fullPage: false }));
        }
      }
    } finally {
      await phone.context.close();
    }
  });

  it('keeps the screenshots small: the viewport, not whole pages', () => {
    const dir = process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/screenshots' : '.dev/screenshots';
    const sizes = readdirSync(dir)
      .filter((f) => f.endsWith('.png'))
      .map((f) => ({ f, bytes: statSync(`${dir}/${f}`).size }));
    // This test's own screenshots (other tests take full pages of theirs, which the README does not show).
    const ours = sizes.filter(({ f }) => taken.has(`${dir}/${f}`));
    assert.ok(ours.length >= 10, ours.map(({ f }) => f).join(', '));
    for (const { f, bytes } of ours) assert.ok(bytes < 200_000, `${f}: ${bytes} bytes`);
    // The README's folder as a whole (other tests' screenshots too) stays under 1.5 MB.
    if (dir === 'docs/screenshots') {
      const total = sizes.reduce((sum, { bytes }) => sum + bytes, 0);
      assert.ok(total < 1_500_000, `docs/screenshots holds ${total} bytes`);
    }
  });
});
