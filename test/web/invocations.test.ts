// The agent builder's path in the web console (issue #20), in headless Chromium: a built-in agent that
// needs no model (tag-keywords, split-sections) is invoked in preview mode over REST; its page shows
// each proposed action with its target and rationale; one of two is chosen and applied with the
// keyboard, and REST shows only that one applied, the other still proposed (issue #37), then that one
// is discarded on its own; another invocation is discarded whole. A tag carrying
// markup stays text. An LLM run (against the local OpenAI-compatible stand-in) proposes an update of a
// draft's content: the API and the page show its unified diff.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { agentId } from '../../src/invocations/agents/registry.js';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, draft, newPerson, probe, signIn } from '../helpers/console.js';
import { FakeOpenAI } from '../helpers/openai-server.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

/** Signs in through the console and the platform's own sign-in page, starting from `path`. */

describe("an invocation's proposed actions in the web console", () => {
  let platform: TestPlatform;
  let browser: Browser;
  let model: FakeOpenAI;

  before(async () => {
    model = await new FakeOpenAI().start();
    platform = await startPlatform({ LLM_MODEL: 'test-model', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
    await model?.close();
  });

  it('shows each proposed action with its rationale, applies the one chosen with the keyboard, and only that one', async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Planning' })).body.id as string;
    const budget = await draft(api, ws, 'Budget 2026', 'The budget covers travel and hardware.');
    const team = await draft(api, ws, 'Team plan', 'Who is on the team and what they do.');
    const invoked = await api.post(`/artifacts/${agentId('tag-keywords')}/invoke`, {
      workspace_id: ws,
      params: { rules: { [probe]: ['budget'], people: ['team'] } },
    });
    assert.equal(invoked.status, 200, invoked.text);
    assert.equal(invoked.body.status, 'awaiting_decision');
    const id = invoked.body.invocation_id as string;
    const actions = invoked.body.actions as { id: string; target: string }[];
    assert.equal(actions.length, 2, JSON.stringify(actions));
    const teamAction = actions.find((a) => a.target === team)!;
    const budgetAction = actions.find((a) => a.target === budget)!;

    const { context, page, dialogs } = await consolePage(browser);
    // Straight to the invocation: sign-in comes back to it.
    await signIn(page, platform, person, `/console/invocations/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Invocation of tag-keywords' }).waitFor();
    assert.equal(await page.getByTestId('invocation-state').textContent(), 'awaiting your decision');
    const facts = await page.locator('article > .facts').innerText();
    assert.match(facts, /Kind\s+task agent/);
    assert.match(facts, /Agent\s+tag-keywords/);
    assert.match(facts, /Mode\s+preview/);
    await page.locator('article > .facts').getByText('Planning').waitFor();

    const list = page.getByRole('list', { name: 'Proposed actions' });
    assert.equal(
      await list
        .getByRole('listitem')
        .filter({ has: page.locator('h3') })
        .count(),
      2,
    );
    // Each action: what it does to which draft (its title, once looked up), and why.
    const teamBox = page.getByRole('checkbox', { name: 'Update Team plan' });
    const budgetBox = page.getByRole('checkbox', { name: 'Update Budget 2026' });
    await teamBox.waitFor();
    await budgetBox.waitFor();
    const teamItem = list.locator(`[data-action-id="${teamAction.id}"]`);
    const budgetItem = list.locator(`[data-action-id="${budgetAction.id}"]`);
    assert.equal(await teamItem.locator('.rationale').textContent(), 'Why: Keywords of "people" appear in the text.');
    assert.equal(await budgetItem.locator('.rationale').textContent(), `Why: Keywords of "${probe}" appear in the text.`);
    assert.match(await budgetItem.innerText(), new RegExp(`tags: \\["${probe.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\]`));
    assert.match(await teamItem.innerText(), /update\s+a\d, proposed/);
    // The rationale describes the checkbox for a screen reader.
    assert.equal(await teamBox.getAttribute('aria-describedby'), `why-${teamAction.id}`);

    // The probe is text: no element made from it, no script ran.
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.locator('main script').count(), 0);

    // The decision's controls, named.
    const tree = await page.getByRole('form', { name: 'Your decision' }).ariaSnapshot();
    assert.match(tree, /button "Apply selected"/);
    assert.match(tree, /button "Apply selected, discard the rest"/);
    assert.match(tree, /button "Discard selected"/);
    assert.match(tree, /button "Apply all"/);
    assert.match(tree, /button "Discard all"/);
    assert.match((await page.getByTestId('invocation-progress').textContent()) ?? '', /^0 of 2 actions applied, 2 proposed$/);

    // Nothing chosen: Apply selected says so and sends nothing.
    await page.getByRole('button', { name: 'Apply selected', exact: true }).click();
    await page
      .getByRole('alert')
      .getByText(/Choose at least one action/)
      .waitFor();
    assert.equal((await api.get(`/invocations/${id}`)).body.status, 'awaiting_decision', 'nothing was sent');

    // Keyboard only: Space on the team action's checkbox, Tab to Apply selected, Enter.
    await teamBox.focus();
    await page.keyboard.press('Space');
    assert.equal(await teamBox.isChecked(), true);
    assert.equal(await budgetBox.isChecked(), false);
    for (let i = 0; i < 10; i++) {
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Apply selected') break;
      await page.keyboard.press('Tab');
    }
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Apply selected');
    await page.keyboard.press('Enter');
    // Applied; the other action stays proposed, to decide on later (issue #37).
    await page.getByTestId(`status-${teamAction.id}`).getByText('applied', { exact: true }).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('invocation-state').textContent(), 'awaiting your decision');
    assert.equal(await page.getByTestId(`status-${budgetAction.id}`).textContent(), 'proposed');
    assert.equal(await page.getByTestId('invocation-progress').textContent(), '1 of 2 actions applied, 1 proposed');
    assert.match(await page.locator('article > .facts').innerText(), new RegExp(`Applied by\\s+you, .*\\(chosen: ${teamAction.id}\\)`));
    assert.equal(await teamBox.count(), 0, 'an applied action is no longer to choose');
    const partly = (await api.get(`/invocations/${id}`)).body;
    assert.equal(partly.status, 'awaiting_decision');
    assert.deepEqual(partly.decision.action_ids, [teamAction.id]);

    // Later: the other one is discarded on its own, which ends the run.
    await budgetBox.check();
    await page.getByRole('button', { name: 'Discard selected' }).click();
    await page.getByTestId('invocation-state').getByText('applied', { exact: true }).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId(`status-${budgetAction.id}`).textContent(), 'discarded');
    assert.match(await page.locator('article > .facts').innerText(), new RegExp(`Discarded by\\s+you, .*\\(chosen: ${budgetAction.id}\\)`));
    assert.equal(await page.getByRole('button', { name: 'Apply all' }).count(), 0, 'no decision once decided');
    assert.equal(await page.getByRole('checkbox').count(), 0);

    // Over REST: only the chosen action was applied.
    const done = (await api.get(`/invocations/${id}`)).body;
    assert.equal(done.status, 'completed');
    assert.deepEqual(
      done.decisions.map((d: { action: string; action_ids: string[] }) => [d.action, d.action_ids]),
      [
        ['apply', [teamAction.id]],
        ['discard', [budgetAction.id]],
      ],
    );
    const statuses = Object.fromEntries((done.actions as { id: string; status: string }[]).map((a) => [a.id, a.status]));
    assert.deepEqual(statuses, { [teamAction.id]: 'applied', [budgetAction.id]: 'discarded' });
    assert.deepEqual((await api.get(`/artifacts/${team}`)).body.context.tags, ['people']);
    const untouched = (await api.get(`/artifacts/${budget}`)).body;
    assert.equal(untouched.revision, 1);
    assert.equal(untouched.context.tags, undefined);
    assert.deepEqual(dialogs, []);
    await context.close();
  });

  it('discards an invocation: its proposed creates are shown, then discarded, and nothing is created', async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Handbooks' })).body.id as string;
    const doc = await draft(api, ws, 'Handbook', '# Intro\nWelcome.\n\n## Setup\nInstall it.\n');
    const invoked = await api.post(`/artifacts/${agentId('split-sections')}/invoke`, { artifact_ids: [doc] });
    assert.equal(invoked.status, 200, invoked.text);
    const id = invoked.body.invocation_id as string;
    assert.equal(invoked.body.actions.length, 2, JSON.stringify(invoked.body.actions));

    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await signIn(page, platform, person, `/console/invocations/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Invocation of split-sections' }).waitFor();
    const list = page.getByRole('list', { name: 'Proposed actions' });
    await page.getByRole('checkbox', { name: 'Create “Intro”' }).waitFor();
    await page.getByRole('checkbox', { name: 'Create “Setup”' }).waitFor();
    const setup = list.locator('[data-action-id="a2"]');
    // The workspace's name is looked up after the page shows (its id stands in until then): wait for it.
    await setup.getByText('Handbooks', { exact: true }).waitFor();
    assert.match(await setup.innerText(), /Workspace\s+Handbooks/);
    assert.match(await setup.innerText(), /Type\s+text\/markdown/);
    assert.equal(await setup.getByLabel('Content of a2').textContent(), invoked.body.actions[1].payload.content as string);
    assert.match((await setup.locator('.rationale').textContent())!, /^Why: \S/);

    await page.getByRole('button', { name: 'Discard all' }).click();
    await page.getByTestId('invocation-state').getByText('discarded', { exact: true }).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('status-a1').textContent(), 'discarded');
    assert.equal(await page.getByTestId('status-a2').textContent(), 'discarded');
    assert.match(await page.locator('article > .facts').innerText(), /Discarded by\s+you/);
    assert.equal(await page.getByRole('button', { name: 'Apply selected', exact: true }).count(), 0);

    const discarded = (await api.get(`/invocations/${id}`)).body;
    assert.equal(discarded.status, 'discarded');
    assert.deepEqual(
      discarded.actions.map((a: { status: string }) => a.status),
      ['discarded', 'discarded'],
    );
    const listed = (await api.get(`/artifacts?collection_id=${ws}`)).body.items;
    assert.deepEqual(
      listed.map((a: { id: string }) => a.id),
      [doc],
      'nothing was created',
    );
    await context.close();
  });

  it("shows an update's content diff, against the revision it was proposed on, in the API and on the page", async () => {
    const person = await newPerson(platform);
    const { api } = person;
    const ws = (await api.post('/workspaces', { name: 'Releases' })).body.id as string;
    const elsewhere = (await api.post('/workspaces', { name: 'Elsewhere' })).body.id as string;
    const notes = await draft(api, ws, 'Release notes', 'Version 1.2\nFixes the login.\nThanks to everyone.\n');
    const foreign = await draft(api, elsewhere, 'Private', 'secret line\n');
    const update = (target: string, content: string) => ({
      kind: 'update',
      target,
      title: null,
      content,
      content_type: null,
      message: null,
    });
    model.reply = () => ({
      content: {
        output: 'Tidied.',
        actions: [
          { ...update(notes, `Version 1.3\nFixes the login.\n${probe}\nThanks to everyone.\n`), rationale: 'bump the version' },
          { ...update(foreign, 'overwritten\n'), rationale: 'reach outside' },
        ],
      },
    });
    const invoked = await api.post(`/artifacts/${agentId('llm')}/invoke`, {
      artifact_ids: [notes],
      input: 'Tidy the notes',
      wait_seconds: 30,
    });
    assert.equal(invoked.status, 200, invoked.text);
    assert.equal(invoked.body.status, 'awaiting_decision', invoked.text);
    const id = invoked.body.invocation_id as string;
    // The draft changes after the proposal: the diff stays the one against the revision the agent saw.
    const edited = await api.patch(`/artifacts/${notes}`, {
      content: 'Version 1.2\nFixes the login and the logout.\nThanks to everyone.\n',
    });
    assert.equal(edited.status, 200, edited.text);

    const read = await api.get(`/invocations/${id}`);
    assert.equal(read.status, 200, read.text);
    const [mine, outside] = read.body.actions as { id: string; status: string; base_revision: number; content_diff?: string }[];
    assert.equal(mine!.base_revision, 1);
    const diff = mine!.content_diff!;
    assert.match(diff, /^--- a\/Release notes$/m);
    assert.match(diff, /^\+\+\+ b\/Release notes$/m);
    assert.match(diff, /^-Version 1\.2$/m);
    assert.match(diff, /^\+Version 1\.3$/m);
    assert.match(diff, /^ Fixes the login\.$/m, "against the proposal's base, not the later edit");
    assert.doesNotMatch(diff, /logout/);
    assert.equal(outside!.status, 'refused');
    assert.equal(outside!.content_diff, undefined, 'nothing read from a draft outside the workspace');

    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await signIn(page, platform, person, `/console/invocations/${id}`);
    const shown = page.getByLabel(`Changes proposed by ${mine!.id}`);
    await shown.waitFor();
    assert.equal(await shown.textContent(), diff.replace(/\n$/, '') + '\n');
    const added = await shown.locator('span.diff-add').allTextContents();
    assert.deepEqual(added, ['+Version 1.3\n', `+${probe}\n`]);
    assert.equal(await page.locator('img').count(), 0, 'the diff is text');

    // Applied, the update conflicts (the draft moved on); the page still shows what was proposed.
    await page.getByRole('button', { name: 'Apply all' }).click();
    await page.getByTestId(`status-${mine!.id}`).getByText('conflict', { exact: true }).waitFor({ timeout: 30_000 });
    assert.equal(await shown.textContent(), diff.replace(/\n$/, '') + '\n');
    assert.match((await api.get(`/artifacts/${notes}`)).body.content, /logout/, 'the later edit stands');
    await context.close();
  });
});
