import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import type { OutboundCall } from './outbound-call.js';
import { tracingOn } from './tracing-state.js';

const tracer = trace.getTracer('platform-outbound');

/** A caller-chosen name (a tool's) kept short in a span's name. */
const short = (text: string) => (text.length > 64 ? `${text.slice(0, 64)}…` : text);

function describe(call: OutboundCall): { name: string; attributes: Attributes } {
  const attributes: Attributes = {
    'platform.outbound.kind': call.kind,
    'platform.outbound.target': call.target,
    'platform.outbound.operation': call.operation,
  };
  if (call.kind === 'llm') {
    Object.assign(attributes, { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': call.target });
    return { name: `chat ${short(call.target)}`, attributes };
  }
  Object.assign(attributes, { 'mcp.server.id': call.target, 'mcp.method.name': call.operation });
  if (call.tool) attributes['gen_ai.tool.name'] = call.tool;
  return { name: call.tool ? `${call.operation} ${short(call.tool)}` : call.operation, attributes };
}

/**
 * Runs an outbound MCP or LLM call in a CLIENT span, a child of the current span (the activity's, the
 * request's): attributes name the server or model, the operation and the tool. A throw, or a tool result
 * flagged `isError`, marks the span as an error. Without tracing it only runs the call.
 */
export function outboundCallSpan<T>(call: OutboundCall, run: () => Promise<T>): Promise<T> {
  if (!tracingOn()) return run();
  const { name, attributes } = describe(call);
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const result = await run();
      if ((result as { isError?: unknown } | undefined)?.isError === true) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool answered with an error result' });
      }
      return result;
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}
