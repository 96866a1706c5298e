// Task-agent invocation (SPEC §1 (3), §4.3): built-in agents propose actions; preview waits for apply
// or discard, apply mode applies at once with every permission; runs are workflows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentId } from '../../src/invocations/agents/registry.js';
import { createApiKey } from '../helpers/credentials.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };
let ws: string;

const dedupe = agentId('dedupe');
const tag = agentId('tag-keywords');
const split = agentId('split-sections');

async function draft(title: string, content: string, workspace = ws, as: Api = alice) {
  const r = await as.post('/artifacts', { title, content_type: 'text/markdown', content, collection_id: workspace });
  assert.equal(r.status, 201, r.text);
  return r.body.id as string;
}

before(async () => {
  platform = await startPlatform({ ALLOW_STDIO_MCP_SERVERS: 'true' }, { worker: true });
  alice = await platform.newUser();
  bob = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'agents' })).body.id;
});
after(() => platform?.close());

const report = 'Quarterly report. Revenue grew in the northern region while costs stayed flat across all teams this quarter.';

describe('task agents', () => {
  it('lists the built-in agents with fixed artifact ids and their parameter schemas', async () => {
    const r = await alice.get('/agents');
    assert.equal(r.status, 200, r.text);
    const names = r.body.items.map((a: { name: string }) => a.name);
    assert.deepEqual(names, ['dedupe', 'tag-keywords', 'split-sections', 'summarize', 'llm', 'extract', 'answer']);
    const d = r.body.items[0];
    assert.equal(d.id, dedupe);
    assert.deepEqual(d.actions, ['delete']);
    assert.equal(d.params_schema.properties.threshold.default, 0.9);
    const asArtifact = await alice.get(`/artifacts/${dedupe}`);
    assert.equal(asArtifact.status, 200, asArtifact.text);
    assert.equal(asArtifact.body.title, 'Remove near-identical artifacts');
    assert.equal(asArtifact.body.context.agent, 'dedupe');
  });

  it('preview → apply: dedupe proposes deleting the later copy; applying deletes it and records the decision', async () => {
    const space = (await alice.post('/workspaces', { name: 'dups' })).body.id;
    const first = await draft('Report', report, space);
    const copy = await draft('Report (copy)', `${report}`, space);
    const other = await draft('Other', 'Something else entirely: a recipe for lemon cake with plenty of sugar.', space);
    const r = await alice.post(`/artifacts/${dedupe}/invoke`, { workspace_id: space });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'awaiting_decision');
    assert.equal(r.body.kind, 'task_agent');
    assert.equal(r.body.mode, 'preview');
    assert.equal(r.body.actions.length, 1, JSON.stringify(r.body.actions));
    const [action] = r.body.actions;
    assert.equal(action.kind, 'delete');
    assert.equal(action.target, copy);
    assert.equal(action.status, 'proposed');
    assert.match(action.rationale, new RegExp(first));
    // Nothing changed yet.
    assert.equal((await alice.get(`/artifacts/${copy}`)).status, 200);
    // The run is readable by REST and by workflow query, and findable by its search attributes.
    const polled = await alice.get(`/invocations/${r.body.invocation_id}`);
    assert.equal(polled.body.status, 'awaiting_decision');
    assert.equal(polled.body.apply, `/invocations/${r.body.invocation_id}/apply`);

    const applied = await alice.post(`/invocations/${r.body.invocation_id}/apply`, {});
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.body.status, 'completed');
    assert.equal(applied.body.actions[0].status, 'applied');
    assert.equal(applied.body.decision.action, 'apply');
    assert.equal(applied.body.decision.by, alice.userId);
    assert.equal((await alice.get(`/artifacts/${copy}`)).status, 404);
    assert.equal((await alice.get(`/artifacts/${first}`)).status, 200);
    assert.equal((await alice.get(`/artifacts/${other}`)).status, 200);
    // A second decision is refused.
    const again = await alice.post(`/invocations/${r.body.invocation_id}/apply`, {});
    assert.equal(again.status, 409, again.text);
    assert.match(again.body.type, /invocation-not-pending$/);

    await eventually(async () => {
      for await (const run of platform.services.temporal.workflow.list({
        query: `WorkspaceId = "${space}" AND AgentName = "dedupe" AND InvocationMode = "preview" AND PrincipalId = "${alice.userId}"`,
      })) {
        if (run.workflowId === `invoke-${r.body.invocation_id}`) return true;
      }
      return false;
    });
  });

  it('preview → discard: nothing is applied and the run ends discarded', async () => {
    const space = (await alice.post('/workspaces', { name: 'discard' })).body.id;
    const id = await draft('Budget', 'The budget covers travel, hardware and training for the team.', space);
    const r = await alice.post(`/artifacts/${tag}/invoke`, {
      workspace_id: space,
      params: { rules: { finance: ['budget'], people: ['team'] } },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.actions[0].kind, 'update');
    assert.deepEqual(r.body.actions[0].payload.context.tags, ['finance', 'people']);
    const d = await alice.post(`/invocations/${r.body.invocation_id}/discard`);
    assert.equal(d.status, 200, d.text);
    assert.equal(d.body.status, 'discarded');
    assert.equal(d.body.actions[0].status, 'discarded');
    const doc = (await alice.get(`/artifacts/${id}`)).body;
    assert.equal(doc.revision, 1);
    assert.equal(doc.context.tags, undefined);
    assert.equal((await alice.post(`/invocations/${r.body.invocation_id}/apply`, {})).status, 409);
  });

  it('applies a chosen subset; the rest stay proposed; provenance names the invocation and action', async () => {
    const space = (await alice.post('/workspaces', { name: 'subset' })).body.id;
    const doc = await draft(
      'Handbook',
      '# Intro\nWelcome.\n\n## Setup\nInstall it.\n\n## Usage\nRun it.\n\n```\n# not a heading\n```',
      space,
    );
    const r = await alice.post(`/artifacts/${split}/invoke`, { artifact_ids: [doc] });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.workspace_id, space, "the workspace defaults to the context artifact's");
    assert.deepEqual(
      r.body.actions.map((a: { payload: { title: string } }) => a.payload.title),
      ['Intro', 'Setup', 'Usage'],
    );
    assert.match(r.body.actions[2].payload.content, /# not a heading/, 'a fenced block is not split');
    const applied = await alice.post(`/invocations/${r.body.invocation_id}/apply`, { action_ids: ['a2'] });
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.body.status, 'awaiting_decision', 'the rest are decided later (issue #37)');
    assert.deepEqual(
      applied.body.actions.map((a: { status: string }) => a.status),
      ['proposed', 'applied', 'proposed'],
    );
    const created = await alice.get(`/artifacts/${applied.body.actions[1].artifact_id}`);
    assert.equal(created.status, 200);
    assert.equal(created.body.title, 'Setup');
    assert.equal(created.body.collection_id, space);
    assert.equal(created.body.context.split_from, doc);
    assert.equal(created.body.provenance.source.kind, 'agent');
    assert.equal(created.body.provenance.source.invocation_id, r.body.invocation_id);
    assert.equal(created.body.provenance.source.action_id, 'a2');
    const listed = (await alice.get(`/artifacts?collection_id=${space}`)).body.items;
    assert.equal(listed.length, 2, 'only the chosen section was created');
    assert.equal((await alice.post(`/invocations/${r.body.invocation_id}/discard`)).body.status, 'completed');
  });

  it('rejects an unknown action id, a bad parameter and a non-invocable target, changing nothing', async () => {
    const r = await alice.post(`/artifacts/${tag}/invoke`, { workspace_id: ws, params: { count: 0 } });
    assert.equal(r.status, 400);
    assert.equal(r.body.invalid_params[0].name, 'params.count');
    const unknownField = await alice.post(`/artifacts/${tag}/invoke`, { workspace_id: ws, agent: 'x' });
    assert.equal(unknownField.status, 400);
    const note = await draft('plain', 'plain text');
    const notInvocable = await alice.post(`/artifacts/${note}/invoke`, {});
    assert.equal(notInvocable.status, 409);
    assert.match(notInvocable.body.type, /not-invocable$/);
    await draft('Taggable', 'budget budget budget');
    const p = await alice.post(`/artifacts/${tag}/invoke`, { workspace_id: ws, params: { rules: { finance: ['budget'] } } });
    assert.equal(p.status, 200, p.text);
    const bad = await alice.post(`/invocations/${p.body.invocation_id}/apply`, { action_ids: ['a99'] });
    assert.equal(bad.status, 400, bad.text);
    assert.equal((await alice.get(`/invocations/${p.body.invocation_id}`)).body.status, 'awaiting_decision');
    await alice.post(`/invocations/${p.body.invocation_id}/discard`);
  });

  it("another person cannot see or decide someone's invocation", async () => {
    const space = (await alice.post('/workspaces', { name: 'private' })).body.id;
    await draft('a', 'budget', space);
    const r = await alice.post(`/artifacts/${tag}/invoke`, { workspace_id: space, params: { rules: { finance: ['budget'] } } });
    assert.equal((await bob.get(`/invocations/${r.body.invocation_id}`)).status, 404);
    assert.equal((await bob.post(`/invocations/${r.body.invocation_id}/apply`, {})).status, 404);
    assert.equal(
      (await bob.post(`/artifacts/${tag}/invoke`, { workspace_id: space })).status,
      404,
      "bob cannot run an agent in alice's workspace",
    );
  });
});

describe('apply mode', () => {
  it('applies at once with the needed scopes and grants', async () => {
    const space = (await alice.post('/workspaces', { name: 'apply' })).body.id;
    const id = await draft('Plan', 'Hiring plan for the platform team: two engineers and a designer.', space);
    const r = await alice.post(`/artifacts/${tag}/invoke`, {
      workspace_id: space,
      mode: 'apply',
      params: { rules: { hiring: ['hiring', 'engineers'] } },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'completed');
    assert.equal(r.body.actions[0].status, 'applied');
    const doc = (await alice.get(`/artifacts/${id}`)).body;
    assert.deepEqual(doc.context.tags, ['hiring']);
    assert.equal(doc.revision, 2);
    assert.equal(doc.provenance.source.invocation_id, r.body.invocation_id);
  });

  it('is refused without the scopes or grants for every action the agent may propose, and nothing changes', async () => {
    const space = (await alice.post('/workspaces', { name: 'no-scope' })).body.id;
    const id = await draft('Plan', 'budget plan', space);
    const readOnly = alice.withToken((await createApiKey(alice, ['artifact:read', 'artifact:invoke'])).key);
    const r = await readOnly.post(`/artifacts/${tag}/invoke`, {
      workspace_id: space,
      mode: 'apply',
      params: { rules: { finance: ['budget'] } },
    });
    assert.equal(r.status, 403, r.text);
    assert.match(r.body.type, /insufficient-scope$/);
    assert.match(r.body.detail, /artifact:write/);
    // The same key may preview: proposing changes nothing.
    const preview = await readOnly.post(`/artifacts/${tag}/invoke`, { workspace_id: space, params: { rules: { finance: ['budget'] } } });
    assert.equal(preview.status, 200, preview.text);
    // Applying with that key: each action is refused for want of the scope.
    const applied = await readOnly.post(`/invocations/${preview.body.invocation_id}/apply`, {});
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.body.actions[0].status, 'refused');
    assert.match(applied.body.actions[0].reason, /artifact:write/);
    assert.equal((await alice.get(`/artifacts/${id}`)).body.revision, 1);

    // A key whose write scope covers text/plain only passes the coarse check; the run finds the
    // markdown target beyond it and applies nothing.
    const plainOnly = alice.withToken((await createApiKey(alice, ['artifact:read', 'artifact:invoke', 'resource:text/plain:write'])).key);
    const partial = await plainOnly.post(`/artifacts/${tag}/invoke`, {
      workspace_id: space,
      mode: 'apply',
      params: { rules: { finance: ['budget'] } },
    });
    assert.equal(partial.status, 200, partial.text);
    assert.equal(partial.body.status, 'refused');
    assert.equal(partial.body.error.type, 'forbidden');
    assert.equal(partial.body.actions[0].status, 'refused');
    assert.match(partial.body.actions[0].reason, /text\/markdown/);
    assert.equal((await alice.get(`/artifacts/${id}`)).body.revision, 1);

    // Bob with only read and invoke grants on the workspace may not apply a delete.
    await alice.post(`/workspaces/${space}/shares`, { person_id: bob.userId, flags: 'RI' });
    const noGrant = await bob.post(`/artifacts/${dedupe}/invoke`, { workspace_id: space, mode: 'apply' });
    assert.equal(noGrant.status, 403, noGrant.text);
    assert.match(noGrant.body.detail, /D \(delete\)/);
  });
});

describe('without a language model', () => {
  it('LLM mode and LLM agents answer 503 llm-not-configured, and start nothing', async () => {
    const r = await alice.post(`/artifacts/${agentId('llm')}/invoke`, { workspace_id: ws, input: 'hello' });
    assert.equal(r.status, 503, r.text);
    assert.match(r.body.type, /llm-not-configured$/);
    assert.match(r.body.detail, /LLM_MODEL/);
    assert.equal((await alice.post(`/artifacts/${agentId('summarize')}/invoke`, { workspace_id: ws })).status, 503);
  });

  it('LLM mode without an input is a 400', async () => {
    const r = await alice.post(`/artifacts/${agentId('llm')}/invoke`, { workspace_id: ws });
    assert.equal(r.status, 400);
    assert.equal(r.body.invalid_params[0].name, 'input');
  });
});

describe('an MCP server as an agent', () => {
  it("runs a server's tool as an agent: its proposals are previewed, fenced to the workspace and applied like any agent's", async () => {
    const space = (await alice.post('/workspaces', { name: 'server-agent' })).body.id;
    const server = await alice.post('/artifacts', {
      title: 'agents',
      content_type: 'application/vnd.platform.mcp-server+json',
      content: JSON.stringify({ transport: { type: 'stdio', command: 'node', args: ['examples/agent-server/server.mjs'] } }),
      collection_id: space,
    });
    assert.equal(server.status, 201, server.text);
    const lower = await draft('release notes for june', 'Notes.', space);
    const fine = await draft('Already Fine', 'Text.', space);
    const r = await alice.post(`/artifacts/${server.body.id}/invoke`, { tool: 'title_case', wait_seconds: 60 });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'awaiting_decision', JSON.stringify(r.body));
    assert.deepEqual(r.body.agent, { id: server.body.id, name: 'mcp:title_case' });
    assert.equal(r.body.workspace_id, space, "the server's workspace by default");
    // Three drafts: the server's own registration is one, and agents do not change platform types.
    assert.equal(r.body.output, '2 of 3 titles to change.');
    const byTarget = Object.fromEntries(r.body.actions.map((a: { target: string }) => [a.target, a]));
    assert.equal(byTarget[lower].status, 'proposed');
    assert.equal(byTarget[server.body.id].status, 'refused');
    assert.match(byTarget[server.body.id].reason, /^platform-type/);
    const applied = await alice.post(`/invocations/${r.body.invocation_id}/apply`, {});
    assert.equal(applied.body.status, 'completed', applied.text);
    assert.equal((await alice.get(`/artifacts/${lower}`)).body.title, 'Release Notes For June');
    assert.equal((await alice.get(`/artifacts/${fine}`)).body.revision, 1);

    const overreach = await alice.post(`/artifacts/${server.body.id}/invoke`, {
      tool: 'overreach',
      params: { elsewhere: ws },
      wait_seconds: 60,
    });
    assert.equal(overreach.body.actions[0].status, 'refused');
    assert.match(overreach.body.actions[0].reason, /^outside-workspace/);
    // The plain tool call is still tool mode.
    const call = await alice.post(`/artifacts/${server.body.id}/invoke`, {
      name: 'title_case',
      arguments: { workspace_id: space, artifacts: [], input: null, params: {} },
    });
    assert.equal(call.body.kind, 'mcp_tool_call', call.text);
  });
});
