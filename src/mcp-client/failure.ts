// What became of an external call that did not return a result, as data: imported by the workflow
// bundle too, so nothing here may touch I/O or the MCP SDK's runtime.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface CallFailure {
  /** Worth another attempt: the network, 408/425/429, 500/502/503/504, a server process that died. */
  retryable: boolean;
  kind:
    | 'http_status'
    | 'timeout'
    | 'protocol'
    | 'unavailable'
    | 'refused'
    | 'discovery'
    | 'configuration'
    /** A server on a host: its relay is not connected, or stopped while it ran the call (docs/decisions.md). */
    | 'relay_offline'
    | 'relay_lost';
  message: string;
  status?: number;
  body?: string;
}

/** A failure as the tool result the caller gets (§7.1): the status and a truncated body, never a crash. */
export function failureResult(failure: CallFailure, attempts: number): CallToolResult {
  const text = [failure.message, failure.body ? `Body: ${failure.body}` : '', attempts > 1 ? `(after ${attempts} attempts)` : '']
    .filter(Boolean)
    .join(' ');
  return {
    isError: true,
    content: [{ type: 'text', text }],
    structuredContent: {
      error: failure.kind,
      message: failure.message,
      ...(failure.status ? { status: failure.status } : {}),
      ...(failure.body ? { body: failure.body } : {}),
      attempts,
    },
  };
}

/** A failed call, sorted and scrubbed of the server's credentials. */
export class CallFailed extends Error {
  constructor(readonly failure: CallFailure) {
    super(failure.message);
  }
}

/** A registration that cannot be called as it stands: no retry will help. */
export const unusable = (message: string) => new CallFailed({ retryable: false, kind: 'configuration', message });
