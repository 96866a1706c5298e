// Transform operators (SPEC §2.2): a multi-step workflow defined as an artifact, validated per step on
// create, run with one child workflow per step, an approval step in the middle, data flowing by
// artifact ids and outputs, and a real MCP server (server-everything over stdio) as a tool step.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, type Api } from '../helpers/http.js';
import { registerServer } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const transformType = 'application/vnd.platform.transform+json';
let platform: TestPlatform;
let alice: Api & { userId: string };
let ws: string;
let everything: string;

before(async () => {
  platform = await startPlatform({ ALLOW_STDIO_MCP_SERVERS: 'true' }, { worker: true });
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'transforms' })).body.id;
  everything = await registerServer(
    alice,
    ws,
    { transport: { type: 'stdio', command: 'npx', args: ['--no-install', '@modelcontextprotocol/server-everything', 'stdio'] } },
    'everything',
  );
});
after(() => platform?.close());

const transform = (steps: unknown[]) =>
  alice.post('/artifacts', { title: 'operator', content_type: transformType, content: JSON.stringify({ steps }), collection_id: ws });

describe('transform operators', () => {
  it('are validated on create, with a clear error per bad step', async () => {
    const r = await transform([
      { id: 'split', kind: 'agent', agent: 'split-sections' },
      { id: 'split', kind: 'agent', agent: 'no-such-agent' },
      { id: 'tag', kind: 'agent', agent: 'tag-keywords', artifact_ids: 'steps.later' },
      { id: 'echo', kind: 'tool', server_id: everything, tool: 'echo', arguments: { message: '{{steps.nope.output}}' } },
      { id: 'wait', kind: 'approval', timeout_seconds: 0 },
    ]);
    assert.equal(r.status, 400, r.text);
    const bad = Object.fromEntries(r.body.invalid_params.map((p: { name: string; reason: string }) => [p.name, p.reason]));
    assert.match(bad['content.steps.1.id'], /repeats the step id split/);
    assert.match(bad['content.steps.1.agent'], /not a known agent/);
    assert.match(bad['content.steps.2.artifact_ids'], /refers to step later/);
    assert.match(bad['content.steps.3.arguments'], /refers to step nope/);
    assert.ok(bad['content.steps.4.timeout_seconds']);
    assert.equal((await transform([])).status, 400);
  });

  it('runs three steps with an approval in the middle, then a tool step; progress is visible by query', async () => {
    const doc = (
      await alice.post('/artifacts', {
        title: 'Guide',
        content_type: 'text/markdown',
        content: '# Budget\nThe budget for travel.\n\n# Hiring\nWe hire two engineers.',
        collection_id: ws,
      })
    ).body.id;
    const t = await transform([
      { id: 'split', kind: 'agent', agent: 'split-sections', params: { level: 1 }, retry: { maximum_attempts: 2 } },
      { id: 'review', kind: 'approval', title: 'Check the sections before tagging' },
      {
        id: 'tag',
        kind: 'agent',
        agent: 'tag-keywords',
        artifact_ids: 'steps.split',
        params: { rules: { finance: ['budget'], people: ['hire'] } },
      },
      { id: 'echo', kind: 'tool', server_id: everything, tool: 'echo', arguments: { message: 'split said: {{steps.split.output}}' } },
    ]);
    assert.equal(t.status, 201, t.text);
    const r = await alice.post(`/artifacts/${t.body.id}/invoke`, { artifact_ids: [doc], wait_seconds: 60 });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.kind, 'transform');
    assert.equal(r.body.status, 'awaiting_approval');
    assert.equal(r.body.current_step, 'review');
    assert.deepEqual(
      r.body.steps.map((s: { status: string }) => s.status),
      ['completed', 'awaiting_approval', 'pending', 'pending'],
    );
    const sections: string[] = r.body.steps[0].artifact_ids;
    assert.equal(sections.length, 2);
    // The first step ran as a child invocation of its own, readable by id.
    const child = await alice.get(`/invocations/${r.body.steps[0].invocation_id}`);
    assert.equal(child.body.status, 'completed');
    assert.equal(child.body.agent.name, 'split-sections');
    // Nothing after the approval has happened yet.
    assert.equal((await alice.get(`/artifacts/${sections[0]}`)).body.context.tags, undefined);
    // An API key may not approve: a person does.
    const polled = await alice.get(`/invocations/${r.body.invocation_id}`);
    assert.equal(polled.body.approve, `/invocations/${r.body.invocation_id}/approve`);

    const approved = await alice.post(`/invocations/${r.body.invocation_id}/approve`, { comment: 'looks right' });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.steps[1].decision.by, alice.userId);
    const done = await eventually(async () => {
      const s = (await alice.get(`/invocations/${r.body.invocation_id}`)).body;
      return s.status !== 'running' && s.status !== 'awaiting_approval' ? s : null;
    }, 60_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.steps));
    assert.deepEqual((await alice.get(`/artifacts/${sections[0]}`)).body.context.tags, ['finance']);
    assert.deepEqual((await alice.get(`/artifacts/${sections[1]}`)).body.context.tags, ['people']);
    assert.equal(done.steps[2].artifact_ids.length, 2, 'the tag step changed the sections it was given');
    assert.match(done.steps[3].output, /split said: 2 sections proposed/);
    // A second decision is refused.
    assert.equal((await alice.post(`/invocations/${r.body.invocation_id}/approve`, {})).status, 409);
  });

  it('a rejected approval ends the run; a changed definition does not touch a run in flight', async () => {
    const doc = (
      await alice.post('/artifacts', {
        title: 'Doc',
        content_type: 'text/markdown',
        content: '# A\nbudget\n\n# B\nhire',
        collection_id: ws,
      })
    ).body.id;
    const t = await transform([
      { id: 'split', kind: 'agent', agent: 'split-sections', params: { level: 1 } },
      { id: 'review', kind: 'approval' },
      { id: 'tag', kind: 'agent', agent: 'tag-keywords', artifact_ids: 'steps.split' },
    ]);
    const r = await alice.post(`/artifacts/${t.body.id}/invoke`, { artifact_ids: [doc], wait_seconds: 60 });
    assert.equal(r.body.status, 'awaiting_approval', r.text);
    assert.equal(r.body.revision, 1);
    const edited = await alice.request('PATCH', `/artifacts/${t.body.id}`, {
      body: { content: JSON.stringify({ steps: [{ id: 'only', kind: 'approval' }] }) },
    });
    assert.equal(edited.status, 200, edited.text);
    const state = (await alice.get(`/invocations/${r.body.invocation_id}`)).body;
    assert.deepEqual(
      state.steps.map((s: { id: string }) => s.id),
      ['split', 'review', 'tag'],
      'the run keeps the definition it started with',
    );
    const rejected = await alice.post(`/invocations/${r.body.invocation_id}/reject`, { comment: 'no' });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.body.status, 'rejected');
    assert.deepEqual(
      rejected.body.steps.map((s: { status: string }) => s.status),
      ['completed', 'rejected', 'pending'],
    );
  });
});
