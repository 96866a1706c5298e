import { outboundCallMetrics } from './outbound-metrics.js';
import { outboundCallSpan } from './outbound-tracing.js';
import type { OutboundCall } from './outbound-call.js';

export type { OutboundCall };

/** Runs one outbound call inside its span, and counts it and its latency. */
export function observeOutbound<T>(call: OutboundCall, run: () => Promise<T>): Promise<T> {
  return outboundCallSpan(call, () => outboundCallMetrics(call, run));
}
