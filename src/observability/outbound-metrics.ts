import type { OutboundCall } from './outbound-call.js';
import { outboundCalls, outboundDuration } from './metrics.js';

/** Failure kinds the MCP client and the LLM client report, kept as outcomes; any other failure is `error`. */
const failureKinds = new Set([
  'timeout',
  'unavailable',
  'http_status',
  'protocol',
  'refused',
  'discovery',
  'configuration',
  'malformed',
  'rejected',
  'not_configured',
]);

/** The outcome of a call: ok, tool_error (an MCP tool answered with isError), or the failure's kind. */
function outcomeOf(result: { value: unknown } | { error: unknown }): string {
  if ('value' in result) return (result.value as { isError?: unknown } | null)?.isError === true ? 'tool_error' : 'ok';
  const err = result.error as { kind?: unknown; failure?: { kind?: unknown } } | null;
  const kind = err?.failure?.kind ?? err?.kind;
  return typeof kind === 'string' && failureKinds.has(kind) ? kind : 'error';
}

/**
 * Counts an outbound call by kind, target, operation and outcome, with its latency. The target is the
 * model for an LLM call (configured, so bounded) and `mcp` for a tool call: a server id is no label,
 * since anyone who may write artifacts registers servers, each id would add series for good (a label
 * an attacker mints); the span carries the server id. Nor is the tool's name.
 */
export async function outboundCallMetrics<T>(call: OutboundCall, run: () => Promise<T>): Promise<T> {
  const labels = { kind: call.kind, target: call.kind === 'llm' ? call.target : 'mcp', operation: call.operation };
  const started = performance.now();
  const record = (outcome: string) => {
    outboundCalls.inc({ ...labels, outcome });
    outboundDuration.observe(labels, (performance.now() - started) / 1000);
  };
  try {
    const value = await run();
    record(outcomeOf({ value }));
    return value;
  } catch (error) {
    record(outcomeOf({ error }));
    throw error;
  }
}
