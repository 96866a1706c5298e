/**
 * The retry policy of one external tool call (`mcpRun`, workflow code): how often the activity that makes
 * the call is retried, with what backoff, and what the caller gets once the attempts run out.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { failureResult, type CallFailure } from '../mcp-client/failure.js';

/** Attempts per call, the first included; the tool result of an exhausted call reports this number. */
export const maxAttempts = 4;

/**
 * Transient failures are retried with backoff. Which failures are transient is decided outside the workflow:
 * mcp-client/results.ts sorts them, and the activity (activities/tool-call.ts) throws only a retryable one
 * (type McpTransient, the CallFailure as its details), answering a final one as an error tool result.
 */
export const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds', maximumAttempts: maxAttempts };

/** The attempts ran out: the last failure, as the tool result the caller reads. */
export function exhausted(err: unknown): CallToolResult {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  const failure = cause instanceof ApplicationFailure ? (cause.details?.[0] as CallFailure | undefined) : undefined;
  return failureResult(
    failure ?? { retryable: false, kind: 'unavailable', message: cause?.message || 'The call did not complete.' },
    maxAttempts,
  );
}
