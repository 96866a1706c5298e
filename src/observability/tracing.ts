import type { Config } from '../kernel/config/env.js';
import type { Logger } from '../kernel/logging/logger.js';

export interface Tracing {
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/** Starts the process's tracer provider (OTLP export when an endpoint is configured). (Filled in by the tracing work.) */
export function startTracing(_config: Config, _service: 'api' | 'worker', _logger: Logger): Tracing {
  return { shutdown: async () => {} };
}
