import { ApplicationFailure, Context } from '@temporalio/activity';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ArtifactStore } from '../store/artifacts.js';
import type { SearchChangeStore } from '../store/search-changes.js';
import { CallFailed, ServerUnusable, type ExternalServers } from '../mcp/client/external.js';
import { failureResult, type CallFailure } from '../mcp/client/results.js';

/** How often a waiting call tells Temporal it is alive (the heartbeat timeout is a few times this). */
const heartbeatEveryMs = 2000;

/**
 * A failure worth retrying is thrown (Temporal retries it with backoff); any other becomes the tool
 * result itself, so a 4xx or a tool error is never retried (§7.1).
 */
async function settle<T>(run: () => Promise<T>): Promise<T | CallToolResult> {
  const { attempt } = Context.current().info;
  try {
    return await run();
  } catch (err) {
    const failure: CallFailure | undefined = err instanceof CallFailed || err instanceof ServerUnusable ? err.failure : undefined;
    if (!failure) throw err;
    if (failure.retryable) throw ApplicationFailure.create({ message: failure.message, type: 'McpTransient', details: [failure] });
    return failureResult(failure, attempt);
  }
}

/** Heartbeats while `run` waits, carrying the latest progress (shown on the pending activity in the Temporal UI). */
async function heartbeating<T>(run: (progress: (p: unknown) => void) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  let latest: unknown;
  const timer = setInterval(() => ctx.heartbeat(latest), heartbeatEveryMs);
  try {
    return await run((p) => {
      latest = p;
      ctx.heartbeat(p);
    });
  } finally {
    clearInterval(timer);
  }
}

export function createMcpActivities(external: ExternalServers, deps: { artifacts: ArtifactStore; changes: SearchChangeStore }) {
  return {
    async callMcpTool(input: { serverId: string; name: string; arguments: Record<string, unknown>; timeoutMs: number; maxTotalMs: number }): Promise<CallToolResult> {
      return heartbeating((progress) =>
        settle(() => external.callTool(input.serverId, input.name, input.arguments, { timeoutMs: input.timeoutMs, maxTotalMs: input.maxTotalMs, onProgress: progress, signal: Context.current().cancellationSignal })),
      );
    },

    async readMcpResource(input: { serverId: string; uri: string; timeoutMs: number }): Promise<ReadResourceResult | CallToolResult> {
      return heartbeating(() => settle(() => external.readResource(input.serverId, input.uri, input.timeoutMs)));
    },

    /** Lists the server into the catalog; an unreachable server is recorded unhealthy, not retried for long. */
    async refreshMcpCatalog(serverId: string): Promise<{ health: 'ok' | 'error'; tools: number; error?: string }> {
      try {
        const doc = await external.refreshCatalog(serverId);
        return { health: 'ok', tools: doc.tools.length };
      } catch (err) {
        const failure = err instanceof CallFailed || err instanceof ServerUnusable ? err.failure : undefined;
        if (!failure) throw err;
        return { health: 'error', tools: 0, error: failure.message };
      }
    },

    /** §4.6 on_create: the server's `context` enriches the artifact, key by key (a user's concurrent edit of other keys stands). */
    async mergeArtifactContext(input: { artifactId: string; context: Record<string, unknown> }): Promise<boolean> {
      const merged = await deps.artifacts.mergeContext(input.artifactId, input.context);
      if (merged) await deps.changes.record(input.artifactId);
      return merged;
    },
  };
}
