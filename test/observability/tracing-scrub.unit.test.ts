// Spans leave without error text (issue #22 review): a status message or an exception event can quote
// content (a tool's answer, a model's reply) that the payload codec keeps sealed in Temporal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { withoutErrorText } from '../../src/observability/tracing.js';

describe('exported spans', () => {
  it('keep the error status and the exception type, not its message or stack', () => {
    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
    const span = provider.getTracer('t').startSpan('tools/call x', { attributes: { 'mcp.server.id': 'srv' } });
    const err = new TypeError('the tool said: SECRET-CONTENT');
    span.recordException(err);
    span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
    span.end();
    const [raw] = memory.getFinishedSpans();
    assert.ok(JSON.stringify(raw!.events).includes('SECRET-CONTENT'), 'the control: the SDK recorded the message');

    const out = withoutErrorText(raw!);
    assert.equal(out.status.code, SpanStatusCode.ERROR);
    assert.ok(!JSON.stringify({ status: out.status, events: out.events }).includes('SECRET-CONTENT'));
    assert.equal(out.events[0]!.attributes!['exception.type'], 'TypeError');
    // Everything else is the span's own: its context, name and attributes.
    assert.equal(out.spanContext().spanId, raw!.spanContext().spanId);
    assert.equal(out.name, 'tools/call x');
    assert.equal(out.attributes['mcp.server.id'], 'srv');
    // A span without error text is passed as it is.
    const ok = provider.getTracer('t').startSpan('fine');
    ok.end();
    const fine = memory.getFinishedSpans()[1]!;
    assert.equal(withoutErrorText(fine), fine);
  });
});
