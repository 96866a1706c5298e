import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { CancelledFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory, TelemetryOptions } from '@temporalio/worker';
import type { Config } from '../kernel/config/env.js';
import type { Logger } from '../kernel/logging/logger.js';
import { problemTypePrefix } from '../kernel/errors/problem.js';
import { activityDuration, activityExecutions, metricsRegistry } from './metrics.js';
import { metricsAccess, metricsRefusal } from './metrics-access.js';

/**
 * The Temporal SDK's own metrics (Runtime telemetry: polls, task latencies, slots, sticky cache),
 * served by the SDK's Prometheus exporter on TEMPORAL_METRICS_ADDRESS, with `temporal_` names. Unset:
 * none. The exporter has no authentication: its address is its protection.
 */
export function runtimeTelemetry(config: Pick<Config, 'TEMPORAL_METRICS_ADDRESS'>): TelemetryOptions | undefined {
  if (!config.TEMPORAL_METRICS_ADDRESS) return undefined;
  return {
    metrics: {
      metricPrefix: 'temporal_',
      prometheus: {
        bindAddress: config.TEMPORAL_METRICS_ADDRESS,
        countersTotalSuffix: true,
        useSecondsForDurations: true,
        unitSuffix: true,
      },
    },
  };
}

/** The SDK exporter's series the dashboard uses (docs/grafana/platform.json); the metrics test checks the exporter serves them. */
export const temporalSdkSeries = [
  'temporal_workflow_task_schedule_to_start_latency_seconds_bucket',
  'temporal_activity_schedule_to_start_latency_seconds_bucket',
];

/** Activity metrics: each attempt's outcome (completed, failed, cancelled) and latency, by activity type. */
export function activityMetricsInterceptors(): ActivityInterceptorsFactory[] {
  return [
    (ctx) => ({
      inbound: {
        async execute(input, next) {
          const activity_type = ctx.info.activityType;
          const started = performance.now();
          let outcome = 'failed';
          try {
            const result = await next(input);
            outcome = 'completed';
            return result;
          } catch (err) {
            if (err instanceof CancelledFailure || ctx.cancellationSignal.aborted) outcome = 'cancelled';
            throw err;
          } finally {
            activityExecutions.inc({ activity_type, outcome });
            activityDuration.observe({ activity_type }, (performance.now() - started) / 1000);
          }
        },
      },
    }),
  ];
}

/** host:port, the host possibly a bracketed IPv6 address. */
export function parseAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(address.slice(colon + 1)) };
}

function problem(res: ServerResponse, status: number, slug: string, title: string, detail: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  res.end(JSON.stringify({ type: problemTypePrefix + slug, title, status, detail }));
}

/** Answers one request of the worker's metrics listener: `GET /healthz` (liveness), and `GET /metrics`, with the METRICS_TOKEN bearer when one is set (its bound address is its protection otherwise). */
export async function serveWorkerMetrics(config: Config, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/healthz') {
    // Liveness, as the API's: the process answers. No dependency is checked, and nothing is revealed.
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    return void res.end(JSON.stringify({ status: 'ok' }));
  }
  if (path !== '/metrics') return problem(res, 404, 'route-not-found', 'No such route', 'Only /metrics and /healthz are served here.');
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return problem(res, 405, 'method-not-allowed', 'Method not allowed', `${req.method} is not allowed here.`, { allow: 'GET, HEAD' });
  // The operator chose this listener's address; with METRICS_TOKEN set, the scraper must also send it.
  const access = config.METRICS_TOKEN
    ? metricsAccess(config, { authorization: req.headers.authorization, remoteAddress: req.socket.remoteAddress })
    : 'allowed';
  if (access !== 'allowed') {
    const refusal = metricsRefusal(access);
    const challenge: Record<string, string> = access === 'unauthorized' ? { 'www-authenticate': 'Bearer' } : {};
    return problem(res, refusal.status, refusal.slug, refusal.title, refusal.detail, challenge);
  }
  const body = await metricsRegistry.metrics();
  res.writeHead(200, { 'content-type': metricsRegistry.contentType, 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * The worker process's own `/metrics` listener on WORKER_METRICS_ADDRESS (activity, commit,
 * invocation-step, outbound-call and storage series, and the process's own); unset: none.
 */
export async function startWorkerMetrics(config: Config, logger: Logger): Promise<{ close(): Promise<void> }> {
  if (!config.WORKER_METRICS_ADDRESS) return { close: async () => {} };
  const { host, port } = parseAddress(config.WORKER_METRICS_ADDRESS);
  const server = createServer((req, res) => {
    serveWorkerMetrics(config, req, res).catch((err) => {
      logger.error({ err }, 'worker metrics failed');
      if (!res.headersSent) problem(res, 500, 'internal-error', 'Internal error', 'The metrics could not be collected.');
      else res.destroy();
    });
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  logger.info({ address: config.WORKER_METRICS_ADDRESS }, 'worker metrics listening');
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
