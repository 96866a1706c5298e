import { invocationSteps } from './metrics.js';

export type InvocationStep = 'propose' | 'apply' | 'tool_call';

/** A failed attempt: `failed` when no retry will follow (a non-retryable failure), `retried` otherwise (Temporal tries again). */
function failureOutcome(err: unknown): string {
  return (err as { nonRetryable?: unknown } | null)?.nonRetryable === true ? 'failed' : 'retried';
}

/**
 * Runs one step of an invocation in the worker and counts what became of it: `outcomes` names the
 * outcome of each thing the step did (one for a proposal or a tool call, one per action for an apply).
 */
export async function countInvocationStep<T>(step: InvocationStep, run: () => Promise<T>, outcomes: (value: T) => string[]): Promise<T> {
  let value: T;
  try {
    value = await run();
  } catch (err) {
    invocationSteps.inc({ step, outcome: failureOutcome(err) });
    throw err;
  }
  for (const outcome of outcomes(value)) invocationSteps.inc({ step, outcome });
  return value;
}
