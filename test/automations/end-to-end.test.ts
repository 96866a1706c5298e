// Automations through the real path (issue #21): a write through the API, its event recorded by the
// workspace's event workflow, dispatched to the automation trigger, the agent run, its write.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AutomationRunStore } from '../../src/automations/runs.js';
import { eventually, type Api } from '../helpers/http.js';
import { FakeOpenAI } from '../helpers/openai-server.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let model: FakeOpenAI;
let alice: Api & { userId: string };

before(async () => {
  model = await new FakeOpenAI().start();
  platform = await startPlatform({ LLM_MODEL: 'test-model', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test' });
  alice = await platform.newUser();
});
after(async () => {
  await platform?.close();
  await model?.close();
});

describe('automations, end to end', () => {
  it('creating a draft of the watched type runs tag-keywords in apply mode, and the draft gets its tags', async () => {
    const ws = (await alice.post('/workspaces', { name: 'automations e2e' })).body.id;
    const automation = await alice.post('/artifacts', {
      title: 'Tag release notes',
      content_type: 'application/vnd.platform.automation+json',
      content: JSON.stringify({
        on: { kinds: ['artifact_created'], content_types: ['text/markdown'] },
        run: { agent: 'tag-keywords', params: { rules: { release: ['ship'], bug: ['crash'] } } },
        mode: 'apply',
      }),
      collection_id: ws,
    });
    assert.equal(automation.status, 201, automation.text);
    const plain = await alice.post('/artifacts', { title: 'Plain', content_type: 'text/plain', content: 'ship it', collection_id: ws });
    const note = await alice.post('/artifacts', {
      title: 'Plan',
      content_type: 'text/markdown',
      content: 'We ship on Friday after the crash is fixed.',
      collection_id: ws,
    });
    assert.equal(note.status, 201, note.text);
    const tags = await eventually(
      async () => (await alice.get(`/artifacts/${note.body.id}`)).body.context?.tags,
      30_000,
      'the automation to tag the draft',
    );
    assert.deepEqual(tags, ['release', 'bug']);
    // The text/plain draft is not of the watched type: untouched.
    assert.equal((await alice.get(`/artifacts/${plain.body.id}`)).body.context?.tags, undefined);
  });

  it('a self-triggering automation stops at the loop guard: its writes carry their depth into the events', async () => {
    const ws = (await alice.post('/workspaces', { name: 'automations loop' })).body.id;
    const note = (await alice.post('/artifacts', { title: 'Growing', content_type: 'text/markdown', content: 'line 0', collection_id: ws }))
      .body.id;
    let calls = 0;
    model.reply = () => ({
      content: {
        output: 'added a line',
        actions: [
          { kind: 'update', target: note, title: null, content: `line ${++calls}`, content_type: null, message: null, rationale: 'grow' },
        ],
      },
    });
    const created = await alice.post('/artifacts', {
      title: 'Grow',
      content_type: 'application/vnd.platform.automation+json',
      content: JSON.stringify({
        on: { kinds: ['artifact_updated'], content_types: ['text/markdown'] },
        run: { agent: 'llm', input: 'Add a line.' },
        mode: 'apply',
      }),
      collection_id: ws,
    });
    assert.equal(created.status, 201, created.text);
    assert.equal((await alice.patch(`/artifacts/${note}`, { content: 'line 0, edited' })).status, 200);
    const runs = new AutomationRunStore(platform.services.db);
    const recorded = await eventually(
      async () => {
        const list = await runs.list(created.body.id);
        return list.some((r) => r.status === 'loop_guard') ? list : undefined;
      },
      60_000,
      'the loop guard to stop the automation',
    );
    assert.deepEqual(recorded.map((r) => [r.status, r.event_depth]).sort(), [
      ['loop_guard', 3],
      ['started', 0],
      ['started', 1],
      ['started', 2],
    ]);
    assert.equal((await alice.get(`/artifacts/${note}`)).body.content, 'line 3');
  });
});
