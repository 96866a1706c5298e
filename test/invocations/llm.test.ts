// LLM mode and LLM-backed agents (SPEC §4.3) against a local OpenAI-compatible server, the one
// stand-in allowed: structured output, an agent reaching outside its workspace, a malformed reply, a
// timeout, context condensed by a content-type server's `summarize` (§4.6).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { agentId } from '../../src/invocations/agents/registry.js';
import { eventually, type Api } from '../helpers/http.js';
import { FakeOpenAI } from '../helpers/openai-server.js';
import { noteTypeServer, registerServer } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let model: FakeOpenAI;
let alice: Api & { userId: string };
let ws: string;
let elsewhere: string;
let foreign: string;

const llm = agentId('llm');
const summarize = agentId('summarize');

const action = (a: Partial<Record<'kind' | 'target' | 'title' | 'content' | 'content_type' | 'message' | 'rationale', string | null>>) => ({
  title: null,
  content: null,
  content_type: null,
  message: null,
  rationale: 'because',
  ...a,
});

before(async () => {
  model = await new FakeOpenAI().start();
  platform = await startPlatform(
    {
      LLM_MODEL: 'test-model',
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-test',
      LLM_TIMEOUT_SECONDS: '1',
      LLM_CONTEXT_TOKENS: '256',
      ALLOW_STDIO_MCP_SERVERS: 'true',
    },
    { worker: true },
  );
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'llm' })).body.id;
  elsewhere = (await alice.post('/workspaces', { name: 'elsewhere' })).body.id;
  foreign = (
    await alice.post('/artifacts', { title: 'Other workspace', content_type: 'text/plain', content: 'keep me', collection_id: elsewhere })
  ).body.id;
});
after(async () => {
  await platform?.close();
  await model?.close();
});

describe('LLM mode', () => {
  it('asks for structured output, records the proposals, refuses one outside the workspace, applies the rest', async () => {
    const source = (
      await alice.post('/artifacts', {
        title: 'Meeting notes',
        content_type: 'text/markdown',
        content: 'We agreed to ship on Friday.',
        collection_id: ws,
      })
    ).body.id;
    model.reply = () => ({
      content: {
        output: 'The team will ship on Friday.',
        actions: [
          action({ kind: 'create', target: ws, title: 'Decision', content: 'Ship on Friday.', rationale: 'records the decision' }),
          action({ kind: 'update', target: foreign, content: 'overwritten', rationale: 'tidy up' }),
          action({ kind: 'log', target: ws, message: 'Nothing else to do.' }),
        ],
      },
    });
    const r = await alice.post(`/artifacts/${llm}/invoke`, { artifact_ids: [source], input: 'What did we decide?' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.kind, 'llm');
    assert.equal(r.body.output, 'The team will ship on Friday.');
    const sent = model.requests.at(-1)!;
    assert.equal(sent.model, 'test-model');
    assert.equal(sent.response_format?.type, 'json_schema');
    assert.equal(sent.response_format?.json_schema?.strict, true);
    assert.deepEqual((sent.response_format?.json_schema?.schema as { required: string[] }).required, ['output', 'actions']);
    assert.match(model.lastPrompt, /We agreed to ship on Friday/);
    assert.match(model.lastPrompt, /What did we decide\?/);

    const [create, update, log] = r.body.actions;
    assert.equal(create.status, 'proposed');
    assert.equal(update.status, 'refused');
    assert.match(update.reason, /^outside-workspace/);
    assert.equal(log.status, 'proposed');

    const applied = await alice.post(`/invocations/${r.body.invocation_id}/apply`, {});
    assert.equal(applied.status, 200, applied.text);
    assert.deepEqual(
      applied.body.actions.map((a: { status: string }) => a.status),
      ['applied', 'refused', 'applied'],
    );
    const made = (await alice.get(`/artifacts/${applied.body.actions[0].artifact_id}`)).body;
    assert.equal(made.content, 'Ship on Friday.');
    assert.equal(made.content_type, 'text/markdown');
    assert.equal((await alice.get(`/artifacts/${foreign}`)).body.content, 'keep me');
  });

  it('a malformed model reply fails the run with a clear error after one retry', async () => {
    const before = model.requests.length;
    model.reply = () => ({ content: 'Sure! Here are the actions: create a note.' });
    const r = await alice.post(`/artifacts/${llm}/invoke`, { workspace_id: ws, input: 'Tidy up', wait_seconds: 30 });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'failed');
    assert.equal(r.body.error.type, 'llm-malformed');
    assert.match(r.body.error.message, /not JSON/);
    assert.equal(model.requests.length - before, 2, 'retried once');
    // A reply that is JSON but not the schema is malformed too.
    model.reply = () => ({ content: { output: 'x', actions: [{ kind: 'explode' }] } });
    const r2 = await alice.post(`/artifacts/${llm}/invoke`, { workspace_id: ws, input: 'Tidy up', wait_seconds: 30 });
    assert.equal(r2.body.error.type, 'llm-malformed');
    assert.match(r2.body.error.message, /schema/);
  });

  it('a model that does not answer in LLM_TIMEOUT_SECONDS fails the run with llm-timeout', async () => {
    model.reply = () => ({ delayMs: 2500, content: { output: 'late', actions: [] } });
    const r = await alice.post(`/artifacts/${llm}/invoke`, { workspace_id: ws, input: 'Anything?', wait_seconds: 30 });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'failed');
    assert.equal(r.body.error.type, 'llm-timeout');
  });

  it('a model endpoint answering 4xx is not retried', async () => {
    const before = model.requests.length;
    model.reply = () => ({ status: 400 });
    const r = await alice.post(`/artifacts/${llm}/invoke`, { workspace_id: ws, input: 'Anything?', wait_seconds: 30 });
    assert.equal(r.body.status, 'failed');
    assert.equal(r.body.error.type, 'llm-rejected');
    assert.equal(model.requests.length - before, 1);
  });
});

describe('LLM agents', () => {
  it("summarize builds its context within the token budget, condensing with the type server's summarize tool", async () => {
    const serverId = await registerServer(alice, ws, noteTypeServer, 'note types');
    await eventually(async () => (await platform.services.mcpCatalog.get(serverId))?.content_types.length);
    const long = 'The rollout starts in the north. '.repeat(200);
    const note = await alice.post('/artifacts', {
      title: 'Rollout',
      content_type: 'application/vnd.example.note+json',
      content: JSON.stringify({ heading: 'Rollout plan', body: long, tags: [] }),
      collection_id: ws,
    });
    assert.equal(note.status, 201, note.text);
    model.reply = () => ({ content: { title: 'Rollout summary', summary: 'It starts in the north.' } });
    const r = await alice.post(`/artifacts/${summarize}/invoke`, { artifact_ids: [note.body.id], mode: 'apply' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'completed', JSON.stringify(r.body));
    assert.match(model.lastPrompt, /\(summary\) ---\nRollout plan: The rollout starts/);
    assert.ok(model.lastPrompt.length < 256 * 4 + 500, 'the context stays within the budget');
    const made = (await alice.get(`/artifacts/${r.body.actions[0].artifact_id}`)).body;
    assert.equal(made.title, 'Rollout summary');
    assert.deepEqual(made.context.summary_of, [note.body.id]);
  });
});

describe('MCP tools on the model', () => {
  async function mcp() {
    const client = new Client({ name: 'llm-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${alice.token}` } },
      }),
    );
    return client;
  }

  it('ask: search, then an answer grounded in the hits, citing them (an invented citation is dropped)', async () => {
    const fact = (
      await alice.post('/artifacts', {
        title: 'Turbine maintenance',
        content_type: 'text/markdown',
        content: 'Intro.\n\nTurbine blades are inspected every 400 hours for flutter.',
        collection_id: ws,
      })
    ).body.id;
    await eventually(async () =>
      (await alice.post('/artifacts/search', { query: 'turbine blades inspected' })).body.results.some(
        (r: { id: string }) => r.id === fact,
      ),
    );
    model.reply = () => ({ content: { answer: 'Every 400 hours.', citations: [fact, '00000000-0000-4000-8000-000000000000'] } });
    const client = await mcp();
    try {
      const r = await client.callTool({ name: 'ask', arguments: { question: 'How often are turbine blades inspected?' } });
      assert.ok(!r.isError, JSON.stringify(r.content));
      const out = r.structuredContent as { mode: string; answer: string; citations: string[]; passages: { id: string; passage: string }[] };
      assert.equal(out.mode, 'llm');
      assert.equal(out.answer, 'Every 400 hours.');
      assert.deepEqual(out.citations, [fact]);
      assert.match(out.passages.find((p) => p.id === fact)!.passage, /every 400 hours/);
      assert.match(model.lastPrompt, /Turbine blades are inspected every 400 hours/);
      assert.match(model.lastPrompt, /How often are turbine blades inspected\?/);
    } finally {
      await client.close();
    }
  });

  it("extract_information proposes a new JSON artifact satisfying the caller's schema, applied over REST", async () => {
    const source = (
      await alice.post('/artifacts', {
        title: 'Invoice',
        content_type: 'text/plain',
        content: 'Invoice 17 from ACME, total 420 EUR, due 2026-12-01.',
        collection_id: ws,
      })
    ).body.id;
    const schema = {
      type: 'object',
      required: ['vendor', 'total'],
      properties: { vendor: { type: 'string' }, total: { type: 'number' } },
      additionalProperties: false,
    };
    const client = await mcp();
    try {
      model.reply = () => ({ content: { data: { vendor: 'ACME', total: 'lots' } } });
      const wrong = await client.callTool({
        name: 'extract_information',
        arguments: { artifact_ids: [source], schema, title: 'Invoice 17' },
      });
      assert.ok(!wrong.isError);
      const failed = wrong.structuredContent as { status: string; error: { type: string; message: string } };
      assert.equal(failed.status, 'failed', 'data that breaks the schema is a malformed reply');
      assert.equal(failed.error.type, 'llm-malformed');
      assert.match(failed.error.message, /total must be number/);

      model.reply = () => ({ content: { data: { vendor: 'ACME', total: 420 } } });
      const r = await client.callTool({ name: 'extract_information', arguments: { artifact_ids: [source], schema, title: 'Invoice 17' } });
      assert.ok(!r.isError, JSON.stringify(r.content));
      const run = r.structuredContent as {
        invocation_id: string;
        status: string;
        actions: { kind: string; payload: { content: string; content_type: string } }[];
      };
      assert.equal(run.status, 'awaiting_decision');
      assert.equal(run.actions[0]!.payload.content_type, 'application/json');
      assert.deepEqual(JSON.parse(run.actions[0]!.payload.content), { vendor: 'ACME', total: 420 });
      const sent = model.requests.at(-1)!;
      assert.deepEqual((sent.response_format!.json_schema!.schema as { properties: { data: unknown } }).properties.data, schema);
      const applied = await alice.post(`/invocations/${run.invocation_id}/apply`, {});
      assert.equal(applied.body.status, 'completed');
      const made = (await alice.get(`/artifacts/${applied.body.actions[0].artifact_id}`)).body;
      assert.equal(made.title, 'Invoice 17');
      assert.deepEqual(made.context.extracted_from, [source]);
    } finally {
      await client.close();
    }
  });
});
