import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** The process's tracing, once started with an endpoint: where the workflows' spans (sent through a sink) go. */
export interface ActiveTracing {
  processor: SpanProcessor;
  resource: Resource;
  /** Whether a request's `traceparent` is continued (true) or only linked from a trace of the request's own. */
  continueIncoming: boolean;
}

let active: ActiveTracing | undefined;

export function setActiveTracing(tracing: ActiveTracing | undefined): void {
  active = tracing;
}

export function activeTracing(): ActiveTracing | undefined {
  return active;
}

/** Whether spans are recorded at all: the hooks test this first, so an untraced process pays nothing more. */
export function tracingOn(): boolean {
  return active !== undefined;
}
