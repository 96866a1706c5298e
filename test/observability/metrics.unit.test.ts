// Metrics without engines (issue #22): the dashboard's queries name only series the code defines, the
// /metrics access rule, labels that never hold a raw path, and the outcome of outbound and storage calls.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import Koa from 'koa';
import { describe, it } from 'node:test';
import { httpMetrics } from '../../src/observability/http-metrics.js';
import { metricsAccess, isLoopback } from '../../src/observability/metrics-access.js';
import { metricsRegistry, seriesNames } from '../../src/observability/metrics.js';
import { storageCallLabels, storageOutcome } from '../../src/observability/metrics-storage.js';
import { outboundCallMetrics } from '../../src/observability/outbound-metrics.js';
import { parseAddress, runtimeTelemetry, temporalSdkSeries } from '../../src/observability/worker-metrics.js';
import { StorageDeadlineError, StorageUnavailableError } from '../../src/store/deadline.js';
import { parseExposition } from './metrics-exposition.js';

const scrape = async () => parseExposition(await metricsRegistry.metrics());

describe('the Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync('docs/grafana/platform.json', 'utf8'));
  const exprs: string[] = dashboard.panels.flatMap((p: { targets: { expr: string }[] }) => p.targets.map((t) => t.expr));

  it('queries only series the code defines (or the Temporal SDK exporter serves)', async () => {
    const defined = new Set([...(await seriesNames()), ...temporalSdkSeries]);
    assert.ok(exprs.length >= 10, 'the dashboard has its queries');
    const used = new Set<string>();
    for (const expr of exprs) {
      // Every series is selected with a label matcher (the $job variable), so each name stands before a `{`.
      const names = [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!);
      assert.ok(names.length > 0, `no series in ${expr}`);
      for (const name of names) {
        assert.ok(defined.has(name), `${name} (in ${expr}) is no series the platform defines`);
        used.add(name);
      }
    }
    // Each kind of series the issue asks for has a panel.
    for (const name of [
      'platform_http_requests_total',
      'platform_http_request_duration_seconds_bucket',
      'platform_mcp_tool_calls_total',
      'platform_outbound_calls_total',
      'platform_storage_operations_total',
      'platform_search_duration_seconds_bucket',
      'platform_search_retriever_candidates_sum',
      'platform_commit_outcomes_total',
      'platform_invocation_steps_total',
      'platform_indexing_backlog',
      'platform_activity_executions_total',
    ])
      assert.ok(used.has(name), `the dashboard shows ${name}`);
  });

  it('is a dashboard Grafana imports: a title, a uid, panels with ids and a Prometheus datasource variable', () => {
    assert.equal(typeof dashboard.title, 'string');
    assert.match(dashboard.uid, /^[a-z0-9-]{1,40}$/);
    const ids = dashboard.panels.map((p: { id: number }) => p.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(dashboard.templating.list.some((v: { type: string; query: string }) => v.type === 'datasource' && v.query === 'prometheus'));
  });
});

describe('who may scrape', () => {
  const token = 'a-scrape-token-of-32-characters!';
  const prod = { isDev: false, TRUST_PROXY_HOPS: 0 };
  const dev = { isDev: true, TRUST_PROXY_HOPS: 0 };

  it('with METRICS_TOKEN: only its bearer, from anywhere', () => {
    assert.equal(
      metricsAccess({ ...prod, METRICS_TOKEN: token }, { authorization: `Bearer ${token}`, remoteAddress: '203.0.113.9' }),
      'allowed',
    );
    for (const authorization of [undefined, '', `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, token, `Basic ${token}`, 'Bearer '])
      assert.equal(
        metricsAccess({ ...dev, METRICS_TOKEN: token }, { authorization, remoteAddress: '127.0.0.1' }),
        'unauthorized',
        String(authorization),
      );
  });

  it('without it: production refuses every scrape, development answers loopback peers only, and none behind a proxy', () => {
    assert.equal(metricsAccess(prod, { remoteAddress: '127.0.0.1' }), 'disabled');
    assert.equal(metricsAccess(prod, { authorization: 'Bearer anything', remoteAddress: '::1' }), 'disabled');
    assert.equal(metricsAccess(dev, { remoteAddress: '127.0.0.1' }), 'allowed');
    assert.equal(metricsAccess(dev, { remoteAddress: '::ffff:127.0.0.1' }), 'allowed');
    assert.equal(metricsAccess(dev, { remoteAddress: '10.0.0.7' }), 'disabled');
    assert.equal(metricsAccess(dev, { remoteAddress: undefined }), 'disabled');
    assert.equal(metricsAccess({ ...dev, TRUST_PROXY_HOPS: 1 }, { remoteAddress: '127.0.0.1' }), 'disabled');
  });

  it('knows loopback addresses', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) assert.equal(isLoopback(a), true, a);
    for (const a of ['10.0.0.1', '::ffff:10.0.0.1', '::2', 'localhost', '127.0.0.1.evil', '']) assert.equal(isLoopback(a), false, a);
  });
});

describe('series labels', () => {
  it('an HTTP request is labelled with its route template, never its raw path; an unknown path is "unmatched"', async () => {
    const app = new Koa();
    const router = new Router();
    router.get('/things/:id', (ctx) => {
      ctx.status = 204;
    });
    app.use(httpMetrics);
    app.use(router.routes());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const before = await scrape();
      assert.equal((await fetch(`${base}/things/0b7c9e4e-raw-id`)).status, 204);
      assert.equal((await fetch(`${base}/nowhere/else-raw`)).status, 404);
      const after = await scrape();
      const moved = (labels: Record<string, string>) =>
        after.sum('platform_http_requests_total', labels) - before.sum('platform_http_requests_total', labels);
      assert.equal(moved({ route: '/things/:id', method: 'GET', status: '204' }), 1);
      assert.equal(moved({ route: 'unmatched', method: 'GET', status: '404' }), 1);
      const routes = after.samples.filter((s) => s.name.startsWith('platform_http_')).map((s) => s.labels.route);
      assert.ok(!routes.some((r) => r?.includes('raw')), `no raw path as a label: ${routes.join(', ')}`);
      assert.equal(
        after.sum('platform_http_request_duration_seconds_count', { route: '/things/:id' }) -
          before.sum('platform_http_request_duration_seconds_count', { route: '/things/:id' }),
        1,
      );
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('a storage call is labelled by collection and operation, its failure by kind', () => {
    assert.deepEqual(storageCallLabels('artifacts.findOne', 'platform'), { collection: 'artifacts', operation: 'findOne' });
    assert.deepEqual(storageCallLabels('artifacts.find (next batch)', 'platform'), { collection: 'artifacts', operation: 'find.next' });
    assert.deepEqual(storageCallLabels('events.aggregate (close)', 'platform'), { collection: 'events', operation: 'aggregate.close' });
    assert.deepEqual(storageCallLabels('platform.command', 'platform'), { collection: '(database)', operation: 'command' });
    assert.deepEqual(storageCallLabels('we ird.x y', 'platform'), { collection: 'other', operation: 'other' });
    assert.equal(storageOutcome(undefined), 'ok');
    assert.equal(storageOutcome(new StorageDeadlineError('artifacts.findOne', 10)), 'deadline');
    assert.equal(storageOutcome(new StorageUnavailableError('down')), 'unavailable');
    assert.equal(storageOutcome(new Error('duplicate key')), 'error');
  });

  it('an outbound call counts ok, a tool error, or the failure kind, and passes the result or error through', async () => {
    // The server's id is no label (anyone who may write registers servers): MCP calls count under `mcp`.
    const call = { kind: 'mcp' as const, target: 'unit-server', operation: 'tools/call' };
    const before = await scrape();
    assert.deepEqual(await outboundCallMetrics(call, async () => ({ content: [] })), { content: [] });
    await outboundCallMetrics(call, async () => ({ isError: true }));
    const timeout = Object.assign(new Error('slow'), { failure: { kind: 'timeout' } });
    await assert.rejects(
      outboundCallMetrics(call, () => Promise.reject(timeout)),
      (err) => err === timeout,
    );
    await assert.rejects(outboundCallMetrics(call, () => Promise.reject(Object.assign(new Error('x'), { kind: 'made-up' }))));
    const after = await scrape();
    const moved = (outcome: string) =>
      after.sum('platform_outbound_calls_total', { target: 'mcp', operation: 'tools/call', outcome }) -
      before.sum('platform_outbound_calls_total', { target: 'mcp', operation: 'tools/call', outcome });
    assert.deepEqual(['ok', 'tool_error', 'timeout', 'error'].map(moved), [1, 1, 1, 1]);
    assert.equal(after.sum('platform_outbound_calls_total', { target: 'unit-server' }), 0, 'no series names the server');
  });
});

describe('the worker', () => {
  it('exposes the Temporal SDK metrics only when an address is configured', () => {
    assert.equal(runtimeTelemetry({}), undefined);
    const telemetry = runtimeTelemetry({ TEMPORAL_METRICS_ADDRESS: '127.0.0.1:9464' });
    assert.deepEqual((telemetry?.metrics as { prometheus: { bindAddress: string } }).prometheus.bindAddress, '127.0.0.1:9464');
  });

  it('reads host:port addresses, IPv6 in brackets', () => {
    assert.deepEqual(parseAddress('127.0.0.1:9465'), { host: '127.0.0.1', port: 9465 });
    assert.deepEqual(parseAddress('[::1]:9465'), { host: '::1', port: 9465 });
  });
});

describe('the exposition parser', () => {
  it('refuses what is not the text format', () => {
    assert.throws(() => parseExposition('x 1\n'), /undeclared/);
    assert.throws(() => parseExposition('# TYPE x counter\nx{a="1} 1\n'), /not a sample|bad labels/);
    assert.throws(() => parseExposition('# TYPE x counter\nx one\n'), /bad value/);
    assert.throws(
      () => parseExposition('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\nh_sum 1\n'),
      /not cumulative/,
    );
    assert.equal(parseExposition('# TYPE x counter\nx{a="q\\"uote"} 3\n').sum('x', { a: 'q"uote' }), 3);
  });
});
