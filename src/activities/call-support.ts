// What every activity that waits on an outside call shares: heartbeats while it waits, and an MCP
// failure turned into a tool result or a retryable Temporal failure.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CallFailed, failureResult } from '../mcp-client/failure.js';

/** How often a waiting call tells Temporal it is alive (the heartbeat timeout is a few times this). */
const heartbeatEveryMs = 2000;

/**
 * A failure worth retrying is thrown (Temporal retries it with backoff); any other becomes the tool
 * result itself, so a 4xx or a tool error is never retried (§7.1).
 */
export async function settle<T>(run: () => Promise<T>): Promise<T | CallToolResult> {
  const { attempt } = Context.current().info;
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof CallFailed)) throw err;
    const { failure } = err;
    if (failure.retryable) throw ApplicationFailure.create({ message: failure.message, type: 'McpTransient', details: [failure] });
    return failureResult(failure, attempt);
  }
}

/**
 * Heartbeats while `run` waits, carrying the latest progress numbers (shown on the pending activity in
 * the Temporal UI); a progress message is the server's text, so it stays out of Temporal.
 */
export async function heartbeating<T>(run: (progress: (p: { progress: number; total?: number }) => void) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  // A local activity has no heartbeat: the workflow task it runs in is what Temporal watches.
  if (ctx.info.isLocal) return run(() => {});
  let latest: { progress: number; total?: number } | undefined;
  const timer = setInterval(() => ctx.heartbeat(latest), heartbeatEveryMs);
  try {
    return await run((p) => {
      latest = { progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}) };
      ctx.heartbeat(latest);
    });
  } finally {
    clearInterval(timer);
  }
}
