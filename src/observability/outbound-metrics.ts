import type { OutboundCall } from './outbound-call.js';

/** Counts an outbound call by kind, target and outcome, with its latency. (Filled in by the metrics work.) */
export function outboundCallMetrics<T>(_call: OutboundCall, run: () => Promise<T>): Promise<T> {
  return run();
}
