import { fileURLToPath } from 'node:url';
import type { ClientInterceptors } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import { activeTracing } from './tracing-state.js';

/**
 * The Temporal client's tracing interceptors: a start, signal, update or query opens a CLIENT span and
 * carries it in the workflow's headers (`_tracer-data`), so the workflow's spans join the caller's trace.
 * Untraced, the header holds an empty carrier.
 */
export function clientTracingInterceptors(): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

/** The worker's tracing interceptors: each activity runs in a span, a child of the workflow's StartActivity span. */
export function workerTracingInterceptors(): WorkerInterceptors {
  return {
    activity: [
      (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) }),
    ],
  };
}

/**
 * The sink the workflow interceptors send their spans through (never during replay). It hands them to
 * the process's span processor when tracing is on, and drops them otherwise; it is always registered,
 * since the bundle always holds the interceptors.
 */
export function workerTracingSinks(): InjectedSinks<OpenTelemetrySinks> {
  const exporters = new WeakMap<object, ReturnType<typeof makeWorkflowExporter>>();
  return {
    exporter: {
      export: {
        fn: (info, spans) => {
          const tracing = activeTracing();
          if (!tracing) return;
          let sink = exporters.get(tracing);
          if (!sink) exporters.set(tracing, (sink = makeWorkflowExporter(tracing.processor, tracing.resource)));
          sink.export.fn(info, spans);
        },
      },
    },
  };
}

/** Modules the workflow bundle loads as workflow interceptors (absolute paths). */
export const workflowTracingModules: string[] = [fileURLToPath(new URL('./workflow-interceptors.ts', import.meta.url))];
