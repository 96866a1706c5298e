import type { ActivityInterceptorsFactory, TelemetryOptions } from '@temporalio/worker';
import type { Config } from '../kernel/config/env.js';
import type { Logger } from '../kernel/logging/logger.js';

/** The Temporal SDK's own metrics (Runtime telemetry), when the worker exposes metrics. (Filled in by the metrics work.) */
export function runtimeTelemetry(_config: Config): TelemetryOptions | undefined {
  return undefined;
}

/** Activity metrics: each activity's outcome and latency. */
export function activityMetricsInterceptors(): ActivityInterceptorsFactory[] {
  return [];
}

/** The worker process's own `/metrics` listener, if configured. */
export async function startWorkerMetrics(_config: Config, _logger: Logger): Promise<{ close(): Promise<void> }> {
  return { close: async () => {} };
}
