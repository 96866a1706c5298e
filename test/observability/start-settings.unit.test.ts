// What `npm start` turns on (issue #30): the worker's and the Temporal SDK's metrics listeners, on
// loopback, in development only, so that every series of the shipped Grafana dashboard has a source
// under `npm start`; production leaves both to the operator.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/kernel/config/env.js';
import { isLoopback } from '../../src/observability/metrics-access.js';
import { seriesNames } from '../../src/observability/metrics.js';
import { parseAddress, runtimeTelemetry, temporalSdkSeries } from '../../src/observability/worker-metrics.js';
import { codecLines, devMetricsAddresses, metricsLines, startEnv } from '../../scripts/start-settings.js';

const production = { PLATFORM_ENV: 'production', MONGODB_URI: 'mongodb://db:27017', TEMPORAL_ADDRESS: 'temporal:7233' };
const productionKey = { PLATFORM_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') };
/** The configuration the worker gets under `npm start` from this shell environment. */
const startConfig = (env: NodeJS.ProcessEnv) => loadConfig({ ...env, ...startEnv(env) });

describe('npm start: the metrics listeners', () => {
  it('are on, on loopback, in the default development setup', () => {
    const config = startConfig({});
    for (const name of ['WORKER_METRICS_ADDRESS', 'TEMPORAL_METRICS_ADDRESS'] as const) {
      const address = config[name];
      assert.equal(address, devMetricsAddresses[name]);
      assert.ok(isLoopback(parseAddress(address!).host), `${name} ${address} is loopback`);
    }
    const exporter = runtimeTelemetry(config)?.metrics;
    assert.ok(exporter && 'prometheus' in exporter);
    assert.equal(exporter.prometheus.bindAddress, devMetricsAddresses.TEMPORAL_METRICS_ADDRESS);
    assert.deepEqual(startConfig({ PLATFORM_ENV: 'development' }).WORKER_METRICS_ADDRESS, devMetricsAddresses.WORKER_METRICS_ADDRESS);
  });

  it('follow what the shell sets: another address, or empty to turn one off', () => {
    const config = startConfig({ WORKER_METRICS_ADDRESS: '127.0.0.1:19465', TEMPORAL_METRICS_ADDRESS: '' });
    assert.equal(config.WORKER_METRICS_ADDRESS, '127.0.0.1:19465');
    assert.equal(config.TEMPORAL_METRICS_ADDRESS, undefined);
    assert.equal(runtimeTelemetry(config), undefined);
  });

  it('are left to the operator in production: nothing is added, and nothing listens unless set', () => {
    assert.deepEqual(startEnv(production), {});
    const config = startConfig({ ...production, ...productionKey });
    assert.equal(config.WORKER_METRICS_ADDRESS, undefined);
    assert.equal(config.TEMPORAL_METRICS_ADDRESS, undefined);
    const chosen = startConfig({ ...production, ...productionKey, WORKER_METRICS_ADDRESS: '0.0.0.0:9465' });
    assert.equal(chosen.WORKER_METRICS_ADDRESS, '0.0.0.0:9465');
  });

  it('give every series the dashboard names a source under the start configuration', async () => {
    const config = startConfig({});
    const dashboard = JSON.parse(readFileSync('docs/grafana/platform.json', 'utf8'));
    const exprs: string[] = dashboard.panels.flatMap((p: { targets: { expr: string }[] }) => p.targets.map((t) => t.expr));
    const names = new Set(exprs.flatMap((expr) => [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!)));
    const platformSeries = new Set(await seriesNames());
    for (const name of names) {
      // The SDK's series come from its exporter only; the platform's from the API's /metrics and the
      // worker's listener (the worker-only ones: activities, commits, invocation steps, most outbound calls).
      if (temporalSdkSeries.includes(name)) assert.ok(runtimeTelemetry(config), `${name}: the SDK exporter is on`);
      else {
        assert.ok(platformSeries.has(name), `${name} is a platform series`);
        assert.ok(config.WORKER_METRICS_ADDRESS, `${name}: the worker's listener is on`);
      }
    }
  });

  it('are printed at start, and an off one says how to turn it on', () => {
    const lines = metricsLines(startConfig({})).join('\n');
    assert.match(lines, /worker http:\/\/127\.0\.0\.1:9465\/metrics/);
    assert.match(lines, /Temporal SDK http:\/\/127\.0\.0\.1:9464\/metrics/);
    assert.match(metricsLines(startConfig({ WORKER_METRICS_ADDRESS: '' })).join('\n'), /worker off \(set WORKER_METRICS_ADDRESS\)/);
  });
});

describe('npm start: the Temporal UI codec hint', () => {
  it('names the endpoint and that signing in to the console is what the UI needs (test/web/temporal-ui.test.ts)', () => {
    const text = codecLines('http://localhost:8080/codec/session').join(' ');
    for (const part of ['http://localhost:8080/codec/session', 'sign in to the console as an administrator'])
      assert.ok(text.includes(part), part);
  });
});
