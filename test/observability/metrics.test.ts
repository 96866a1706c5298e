// Prometheus metrics against the real engines (issue #22): /metrics refuses a scraper without the
// token and parses with it; after a request, a search, an MCP tool call, an invocation and a commit,
// their series have moved, labelled by route template (never a raw id); the worker's own listener
// and the Temporal SDK's exporter serve theirs.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { agentId } from '../../src/invocations/agents/registry.js';
import { startWorkerMetrics, temporalSdkSeries } from '../../src/observability/worker-metrics.js';
import { freePort } from '../../temporal-dev/engines.js';
import { commitInto } from '../helpers/commit.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { parseExposition, type Exposition } from './metrics-exposition.js';

const token = randomBytes(24).toString('base64url');
let platform: TestPlatform;
let alice: Api & { userId: string };
let sdkAddress: string;

before(async () => {
  sdkAddress = `127.0.0.1:${await freePort()}`;
  // This file's process installs the Temporal runtime first, so the SDK's exporter is this test's.
  platform = await startPlatform({ METRICS_TOKEN: token, TEMPORAL_METRICS_ADDRESS: sdkAddress }, { worker: true });
  alice = await platform.newUser();
});
after(() => platform?.close());

async function scrape(): Promise<Exposition> {
  const reply = await platform.api.get('/metrics', { authorization: `Bearer ${token}` });
  assert.equal(reply.status, 200, reply.text);
  assert.match(reply.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseExposition(reply.text);
}

/** How much each series moved between two scrapes. */
const moved = (before: Exposition, after: Exposition, name: string, labels: Record<string, string> = {}) =>
  after.sum(name, labels) - before.sum(name, labels);

describe('/metrics', () => {
  it('refuses a scraper without the token, or with a wrong one, with a problem', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: `Bearer ${token}x` }, { authorization: `Basic ${token}` }];
    for (const headers of attempts) {
      const reply = await platform.api.get('/metrics', headers);
      assert.equal(reply.status, 401, JSON.stringify(headers));
      assert.equal(reply.body.type, 'urn:platform:problem:unauthorized');
      assert.match(reply.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.doesNotMatch(reply.text, /platform_http_requests_total/);
    }
  });

  it('after a request, a search, an MCP tool call, an invocation and a commit, their series have moved', async () => {
    const ws = (await alice.post('/workspaces', { name: 'metrics' })).body.id as string;
    const created = await alice.post('/artifacts', {
      title: 'Hiring plan',
      content_type: 'text/markdown',
      content: 'Hiring plan for the platform team: two engineers and a designer.',
      collection_id: ws,
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    const start = await scrape();

    // A request: counted by its route template, never its id.
    assert.equal((await alice.get(`/artifacts/${id}`)).status, 200);
    assert.equal((await alice.get(`/artifacts/${randomUUID()}`)).status, 404);
    // A search, over REST.
    const search = await alice.post('/artifacts/search', { query: 'hiring engineers' });
    assert.equal(search.status, 200, search.text);
    // A tool call at /mcp.
    const client = new Client({ name: 'metrics-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${alice.token}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'browse_workspaces', arguments: {} });
      assert.notEqual(result.isError, true, JSON.stringify(result));
    } finally {
      await client.close();
    }
    // An invocation of a built-in agent, applied at once.
    const invoked = await alice.post(`/artifacts/${agentId('tag-keywords')}/invoke`, {
      workspace_id: ws,
      mode: 'apply',
      params: { rules: { hiring: ['hiring', 'engineers'] } },
    });
    assert.equal(invoked.status, 200, invoked.text);
    assert.equal(invoked.body.status, 'completed', invoked.text);
    // A commit, approved.
    const col = (await alice.post('/collections', { name: 'metrics-published' })).body.id as string;
    await commitInto(alice, col, [{ title: 'Published note' }]);

    const end = await eventually(async () => {
      const now = await scrape();
      return moved(start, now, 'platform_commit_outcomes_total', { outcome: 'committed' }) >= 1 && now;
    });

    assert.equal(moved(start, end, 'platform_http_requests_total', { route: '/artifacts/:id', method: 'GET', status: '200' }), 1);
    assert.equal(moved(start, end, 'platform_http_requests_total', { route: '/artifacts/:id', method: 'GET', status: '404' }), 1);
    assert.ok(moved(start, end, 'platform_http_request_duration_seconds_count', { route: '/artifacts/:id', method: 'GET' }) >= 2);
    const labelValues = end.samples.flatMap((s) => Object.values(s.labels));
    assert.ok(!labelValues.some((v) => v.includes(id)), 'no label holds the artifact id');
    assert.ok(!labelValues.some((v) => v.startsWith('/artifacts/') && /[0-9a-f]{8}-/.test(v)), 'no raw path as a route label');

    assert.equal(moved(start, end, 'platform_search_duration_seconds_count', { preset: 'balanced' }), 1);
    assert.equal(moved(start, end, 'platform_search_retriever_candidates_count', { retriever: 'lexical' }), 1);
    assert.equal(moved(start, end, 'platform_search_retriever_candidates_count', { retriever: 'semantic' }), 1);
    assert.ok(
      moved(start, end, 'platform_search_retriever_candidates_sum', { retriever: 'lexical' }) >= 1,
      'the lexical retriever found the plan',
    );

    assert.equal(moved(start, end, 'platform_mcp_tool_calls_total', { tool: 'browse_workspaces', outcome: 'ok' }), 1);

    assert.ok(moved(start, end, 'platform_invocation_steps_total', { step: 'propose', outcome: 'proposed' }) >= 1);
    assert.ok(moved(start, end, 'platform_invocation_steps_total', { step: 'apply', outcome: 'applied' }) >= 1);
    assert.ok(moved(start, end, 'platform_activity_executions_total', { activity_type: 'proposeActions', outcome: 'completed' }) >= 1);
    assert.ok(moved(start, end, 'platform_activity_duration_seconds_count', { activity_type: 'applyActions' }) >= 1);

    assert.ok(moved(start, end, 'platform_storage_operations_total', { collection: 'artifacts', outcome: 'ok' }) > 0);
    assert.ok(moved(start, end, 'platform_storage_operation_duration_seconds_count', { collection: 'artifacts' }) > 0);

    // The backlog was counted at scrape time (a number, not the NaN of a failed count).
    const backlog = end.samples.find((s) => s.name === 'platform_indexing_backlog');
    assert.ok(backlog && Number.isFinite(backlog.value) && backlog.value >= 0, `backlog ${backlog?.value}`);
    assert.equal(moved(start, end, 'platform_metrics_collect_failures_total'), 0);
  });

  it('the worker serves its series on its own listener, with the same token, and its liveness', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const listener = await startWorkerMetrics({ ...platform.config, WORKER_METRICS_ADDRESS: address }, platform.services.logger);
    try {
      const refused = await fetch(`http://${address}/metrics`);
      assert.equal(refused.status, 401);
      assert.equal(((await refused.json()) as { type: string }).type, 'urn:platform:problem:unauthorized');
      assert.equal((await fetch(`http://${address}/elsewhere`, { headers: { authorization: `Bearer ${token}` } })).status, 404);
      // Liveness needs no token (an orchestrator's probe), and says nothing more than that the process answers.
      const live = await fetch(`http://${address}/healthz`);
      assert.equal(live.status, 200);
      assert.deepEqual(await live.json(), { status: 'ok' });
      const reply = await fetch(`http://${address}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(reply.status, 200);
      const exposition = parseExposition(await reply.text());
      assert.ok(exposition.sum('platform_activity_executions_total') > 0);
    } finally {
      await listener.close();
    }
    // Without a token, the address the operator bound it to is its protection.
    const bound = `127.0.0.1:${await freePort()}`;
    const open = await startWorkerMetrics(
      { ...platform.config, METRICS_TOKEN: undefined, WORKER_METRICS_ADDRESS: bound },
      platform.services.logger,
    );
    try {
      assert.equal((await fetch(`http://${bound}/metrics`)).status, 200);
      assert.equal((await fetch(`http://${bound}/metrics`, { method: 'POST' })).status, 405);
    } finally {
      await open.close();
    }
  });

  it('the Temporal SDK exporter serves the series the dashboard uses', async () => {
    const text = await eventually(
      async () => {
        const body = await (await fetch(`http://${sdkAddress}/metrics`)).text();
        return temporalSdkSeries.every((name) => body.includes(`${name}{`)) && body;
      },
      20_000,
      `the SDK series ${temporalSdkSeries.join(', ')}`,
    );
    const names = new Set(
      text
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => l.split(/[{ ]/)[0]),
    );
    for (const name of temporalSdkSeries) assert.ok(names.has(name), name);
  });
});
