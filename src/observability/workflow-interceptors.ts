// Workflow code: bundled into the workflow sandbox (workflowTracingModules). The Temporal package's own
// workflow interceptors (RunWorkflow, StartActivity, signal and update spans, made from the context in the
// workflow's headers and sent out through the `exporter` sink), with one change: span and trace ids that
// do not draw on the sandbox's Math.random. That generator is seeded per run and also feeds uuid4(); each
// span drawing from it would shift every later id the workflow makes (a child workflow's id, say), and a
// history recorded without tracing would no longer replay.
// First: the package's sandbox patch (a `performance` global), which OpenTelemetry needs at load.
import '@temporalio/interceptors-opentelemetry/lib/workflow/runtime.js';
import { BasicTracerProvider, SimpleSpanProcessor, type IdGenerator } from '@opentelemetry/sdk-trace-base';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter.js';
import { context, ROOT_CONTEXT, trace, type Tracer } from '@opentelemetry/api';
import { extractContextFromHeaders } from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import type { Headers, Next } from '@temporalio/common';
import {
  workflowInfo,
  type ActivityInput,
  type ContinueAsNewInput,
  type LocalActivityInput,
  type QueryInput,
  type SignalInput,
  type SignalWorkflowInput,
  type StartChildWorkflowExecutionInput,
  type UpdateInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { getActivator } from '@temporalio/workflow/lib/global-attributes.js';

/** Ids made so far, per workflow execution (its activator): the next id is a hash of the run id and this count. */
const counts = new WeakMap<object, number>();

/** FNV-1a of the text, then murmur3's finaliser: 32 well-mixed bits. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** `words` × 32 bits of hex, the same on replay, distinct per run and per id. */
function nextId(words: number): string {
  const activator = getActivator();
  const n = (counts.get(activator) ?? 0) + 1;
  counts.set(activator, n);
  const seed = `${workflowInfo().runId}/${n}`;
  let id = '';
  // The last word's low bit set: never the all-zero id, which OpenTelemetry reads as "no span".
  for (let w = 0; w < words; w++) id += ((hash32(`${seed}/${w}`) | (w === words - 1 ? 1 : 0)) >>> 0).toString(16).padStart(8, '0');
  return id;
}

const ids: IdGenerator = { generateTraceId: () => nextId(4), generateSpanId: () => nextId(2) };

let sharedTracer: Tracer | undefined;

/** One tracer for every workflow of this sandbox (a provider per workflow cost milliseconds each). */
function workflowTracer(): Tracer {
  sharedTracer ??= new BasicTracerProvider({ idGenerator: ids, spanProcessors: [new SimpleSpanProcessor(new SpanExporter())] }).getTracer(
    '@temporalio/interceptor-workflow',
  );
  return sharedTracer;
}

/** Whether a caller's trace reached this workflow: with tracing off (or a start outside any trace) none does, and no span is made. */
const traced = (headers: Headers) => trace.getSpanContext(extractContextFromHeaders(headers) ?? ROOT_CONTEXT) !== undefined;
/** Whether the workflow code runs inside one of our spans (a traced workflow). */
const inSpan = () => trace.getSpan(context.active()) !== undefined;

/**
 * Spans only for workflows a trace reached: a workflow started, signalled or updated without a trace
 * context (tracing off, or a start from a timer or the event sweeper) runs as if there were no
 * interceptor: no span, no sink call (measured: about 40 ms of an invocation's p50 with tracing off).
 */
class Inbound extends OpenTelemetryInboundInterceptor {
  protected override readonly tracer = workflowTracer();
  override execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
    return traced(input.headers) ? super.execute(input, next) : next(input);
  }
  override handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>) {
    return traced(input.headers) ? super.handleSignal(input, next) : next(input);
  }
  override handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>) {
    return traced(input.headers) ? super.handleUpdate(input, next) : next(input);
  }
  override validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>) {
    return traced(input.headers) ? super.validateUpdate(input, next) : next(input);
  }
  override handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>) {
    return traced(input.headers) ? super.handleQuery(input, next) : next(input);
  }
}

class Outbound extends OpenTelemetryOutboundInterceptor {
  protected override readonly tracer = workflowTracer();
  override scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    return inSpan() ? super.scheduleActivity(input, next) : next(input);
  }
  override scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>) {
    return inSpan() ? super.scheduleLocalActivity(input, next) : next(input);
  }
  override startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ) {
    return inSpan() ? super.startChildWorkflowExecution(input, next) : next(input);
  }
  override continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>) {
    return inSpan() ? super.continueAsNew(input, next) : next(input);
  }
  override signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>) {
    return inSpan() ? super.signalWorkflow(input, next) : next(input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new Inbound()],
  outbound: [new Outbound()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
