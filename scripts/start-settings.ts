// What `npm start` turns on for a development machine that a production deployment leaves to its
// operator: the worker's and the Temporal SDK's metrics listeners, on loopback, so that every series of
// the shipped Grafana dashboard (docs/grafana/platform.json) has a source on a developer's machine too.
import type { Config } from '../src/kernel/config/env.js';

/** The listeners' development addresses: loopback only (the SDK exporter has no authentication). */
export const devMetricsAddresses = {
  WORKER_METRICS_ADDRESS: '127.0.0.1:9465',
  TEMPORAL_METRICS_ADDRESS: '127.0.0.1:9464',
} as const;

/**
 * The settings `npm start` adds to the environment: the development metrics addresses, each unless
 * the shell set it (empty turns that listener off), and only when PLATFORM_ENV is development (its
 * default). In production nothing is added: the operator chooses where, or whether, they listen.
 */
export function startEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  if ((env.PLATFORM_ENV?.trim() || 'development') !== 'development') return {};
  return Object.fromEntries(Object.entries(devMetricsAddresses).filter(([name]) => env[name] === undefined));
}

/** The lines `npm start` prints about metrics: where each source listens, or that it is off and how to turn it on. */
export function metricsLines(
  config: Pick<Config, 'apiUri' | 'METRICS_TOKEN' | 'WORKER_METRICS_ADDRESS' | 'TEMPORAL_METRICS_ADDRESS'>,
): string[] {
  const who = config.METRICS_TOKEN ? 'with the METRICS_TOKEN bearer' : 'loopback clients only';
  const at = (address: string | undefined, name: string) => (address ? `http://${address}/metrics` : `off (set ${name})`);
  return [
    `Metrics      API ${config.apiUri}/metrics (${who})`,
    `             worker ${at(config.WORKER_METRICS_ADDRESS, 'WORKER_METRICS_ADDRESS')}`,
    `             Temporal SDK ${at(config.TEMPORAL_METRICS_ADDRESS, 'TEMPORAL_METRICS_ADDRESS')} (no authentication)`,
  ];
}

/**
 * How to see decoded payloads in the dev server's Web UI: the UI calls the codec with the browser's
 * cookie (temporal-dev/ui-proxy.ts turns that on), so signing in to the console is all it takes
 * (test/web/temporal-ui.test.ts).
 */
export const codecLines = (endpoint: string): string[] => [
  `Codec        ${endpoint}: sign in to the console as an administrator, and the Temporal UI shows payloads decoded`,
];
