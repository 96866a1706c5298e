import type { ClientInterceptors } from '@temporalio/client';
import type { WorkerInterceptors, WorkerOptions } from '@temporalio/worker';

/** The Temporal client's tracing interceptors: a start or signal carries the caller's span in its headers. (Filled in by the tracing work.) */
export function clientTracingInterceptors(): ClientInterceptors {
  return {};
}

/** The worker's tracing interceptors (activities), and the sinks the workflow interceptors export through. */
export function workerTracingInterceptors(): WorkerInterceptors {
  return {};
}

export function workerTracingSinks(): WorkerOptions['sinks'] {
  return undefined;
}

/** Modules the workflow bundle loads as workflow interceptors (absolute paths). */
export const workflowTracingModules: string[] = [];
