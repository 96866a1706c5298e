// MCP tasks for the tools that wait on a language model: `ask` and `extract_information` answer a
// task-capable 2026-07-28 client with a task when the model takes longer than a moment (the model is
// the local OpenAI-compatible stand-in, the one a test may use), and tasks/get then returns what the
// tool itself would have answered: ask's grounded answer with its passages, extraction's proposal.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Api } from '../helpers/http.js';
import { eventually } from '../helpers/http.js';
import { FakeOpenAI } from '../helpers/openai-server.js';
import { envelope, postMcp } from '../helpers/mcp-raw.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let model: FakeOpenAI;
let alice: Api;
let ws: string;

before(async () => {
  model = await new FakeOpenAI().start();
  platform = await startPlatform(
    { LLM_MODEL: 'test-model', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test', LLM_TIMEOUT_SECONDS: '20' },
    { worker: true },
  );
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'llm tasks' })).body.id;
});
after(async () => {
  await platform?.close();
  await model?.close();
});

/** One 2026-07-28 request of a client that declared the tasks extension, as the SDKs frame it. */
async function rpc(method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const body = await postMcp(`${platform.url}/mcp`, alice.token!, { method, params: { ...params, _meta: envelope(true) } });
  assert.ok(body.result, JSON.stringify(body));
  return body.result;
}

async function followed(taskId: string): Promise<Record<string, any>> {
  return eventually(
    async () => {
      const task = await rpc('tasks/get', { taskId });
      assert.ok(['working', 'completed'].includes(task.status), JSON.stringify(task));
      return task.status === 'completed' ? task : null;
    },
    60_000,
    `task ${taskId}`,
  );
}

describe('MCP tasks for the LLM tools', () => {
  it('ask with a slow model: a task, then the grounded answer with its passages', async () => {
    const fact = (
      await alice.post('/artifacts', {
        title: 'Gearbox service',
        content_type: 'text/markdown',
        content: 'The gearbox oil is changed every 2000 hours.',
        collection_id: ws,
      })
    ).body.id as string;
    await eventually(async () =>
      (await alice.post('/artifacts/search', { query: 'gearbox oil changed' })).body.results.some((r: { id: string }) => r.id === fact),
    );
    model.reply = () => ({ content: { answer: 'Every 2000 hours.', citations: [fact] }, delayMs: 3000 });
    const created = await rpc('tools/call', { name: 'ask', arguments: { question: 'How often is the gearbox oil changed?' } });
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    assert.match(created.taskId, /^invoke-/);
    const end = await followed(created.taskId);
    const out = end.result.structuredContent as { mode: string; answer: string; citations: string[]; passages: { id: string }[] };
    assert.equal(out.mode, 'llm');
    assert.equal(out.answer, 'Every 2000 hours.');
    assert.deepEqual(out.citations, [fact]);
    assert.ok(
      out.passages.some((p) => p.id === fact),
      'the passages the task kept since the call',
    );
  });

  it('extract_information with a slow model: a task, then the proposal awaiting a decision', async () => {
    const source = (
      await alice.post('/artifacts', {
        title: 'Invoice 18',
        content_type: 'text/plain',
        content: 'Invoice 18 from Initech, total 99 EUR.',
        collection_id: ws,
      })
    ).body.id as string;
    const schema = { type: 'object', required: ['vendor'], properties: { vendor: { type: 'string' } }, additionalProperties: false };
    model.reply = () => ({ content: { data: { vendor: 'Initech' } }, delayMs: 3000 });
    const created = await rpc('tools/call', {
      name: 'extract_information',
      arguments: { artifact_ids: [source], schema, title: 'Invoice 18' },
    });
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    const end = await followed(created.taskId);
    const run = end.result.structuredContent as { status: string; actions: { payload: { content: string } }[] };
    assert.equal(run.status, 'awaiting_decision');
    assert.deepEqual(JSON.parse(run.actions[0]!.payload.content), { vendor: 'Initech' });
  });

  it('a model that answers at once: the same answer, as a plain result when it came within the moment', async () => {
    model.reply = () => ({ content: { answer: 'Right away.', citations: [] } });
    const answer = await rpc('tools/call', { name: 'ask', arguments: { question: 'How often is the gearbox oil changed?' } });
    // On a loaded machine the run may still outlast the moment: then it is a task with the same end.
    const result = answer.resultType === 'task' ? (await followed(answer.taskId)).result : answer;
    assert.equal(result.resultType, 'complete', JSON.stringify(answer));
    assert.equal(result.structuredContent.answer, 'Right away.');
  });
});
