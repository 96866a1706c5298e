import { Context } from '@temporalio/activity';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ArtifactStore } from '../store/artifacts.js';
import { IndexingWorkflows } from '../workflow-clients/indexing.js';
import type { SearchChangeStore } from '../store/search-changes.js';
import type { ExternalServers } from '../mcp-client/external.js';
import { CallFailed, failureResult } from '../mcp-client/failure.js';
import { heartbeating, settle } from './call-support.js';
import { lifecycleArguments } from '../mcp-client/lifecycle.js';
import { countInvocationStep } from '../observability/metrics-invocations.js';
import { delegationMetaKey, type DelegationRequest, type DelegationTokens } from '../identity/delegation.js';
import type { ServerCredentialStore } from '../store/server-credentials.js';

/** What a delegated call needs: the signing keys (through the minter), and the credentials that make a server first-party. */
export interface Delegations {
  tokens: DelegationTokens;
  credentials: ServerCredentialStore;
}

export function createToolCallActivities(
  external: ExternalServers,
  deps: {
    artifacts: ArtifactStore;
    changes: SearchChangeStore;
    delegations: Delegations;
    /** The task queue whose indexing the enrichment's new revision is queued on (none: not queued). */
    taskQueue?: string;
  },
) {
  /**
   * The call's `_meta` with a delegation token, when the server is first-party now: the person who
   * last wrote its registration (whose URL the call goes to) holds an active credential naming it.
   * Minted here, right before the call, so no token is ever in the workflow's history or the store.
   */
  async function delegationMeta(serverId: string, request: DelegationRequest): Promise<Record<string, string> | undefined> {
    const server = await deps.artifacts.get(serverId);
    if (!server) return undefined;
    const credential = await deps.delegations.credentials.activeForServer(serverId, server.secrets_owner ?? server.provenance.created_by);
    if (!credential) return undefined;
    const token = await deps.delegations.tokens.mint(request, { clientId: credential._id, scopes: credential.scopes });
    return { [delegationMetaKey]: token };
  }

  return {
    /** Calls a tool; a §4.6 lifecycle call names its artifact, whose fields become the arguments here. */
    async callMcpTool(input: {
      serverId: string;
      revision?: number;
      name: string;
      arguments: Record<string, unknown>;
      artifactId?: string;
      timeoutMs?: number;
      maxTotalMs: number;
      person?: string;
      /** A viewer's call through the console (SPEC §5.7): a first-party server receives a delegation token. */
      delegation?: DelegationRequest;
    }): Promise<CallToolResult> {
      let args = input.arguments;
      if (input.artifactId) {
        const doc = await deps.artifacts.get(input.artifactId);
        if (!doc)
          return failureResult({ retryable: false, kind: 'configuration', message: `Artifact ${input.artifactId} no longer exists.` }, 1);
        args = lifecycleArguments(doc);
      }
      const meta = input.delegation ? await delegationMeta(input.serverId, input.delegation) : undefined;
      const called = heartbeating((progress) =>
        settle(() =>
          external.callTool(
            input.serverId,
            input.name,
            args,
            {
              ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}),
              maxTotalMs: input.maxTotalMs,
              onProgress: progress,
              signal: Context.current().cancellationSignal,
              ...(input.person ? { person: input.person } : {}),
              ...(meta ? { meta } : {}),
            },
            input.revision,
          ),
        ),
      );
      return countInvocationStep(
        'tool_call',
        () => called,
        (result) => [result.isError ? 'tool_error' : 'ok'],
      );
    },

    async readMcpResource(input: {
      serverId: string;
      uri: string;
      timeoutMs: number;
      person?: string;
    }): Promise<ReadResourceResult | CallToolResult> {
      return heartbeating(() => settle(() => external.readResource(input.serverId, input.uri, input.timeoutMs, input.person)));
    },

    /** Lists the server into the catalog; an unreachable server is recorded unhealthy, not retried for long. */
    async refreshMcpCatalog(serverId: string, person?: string): Promise<{ health: 'ok' | 'error'; tools: number; error?: string }> {
      try {
        // Heartbeating: a listing through a host's relay may first clone and install a repository.
        const doc = await heartbeating(() => external.refreshCatalog(serverId, person));
        return { health: 'ok', tools: doc.tools.length };
      } catch (err) {
        if (!(err instanceof CallFailed)) throw err;
        return { health: 'error', tools: 0, error: err.failure.message };
      }
    },

    /**
     * §4.6 on_create: the server's `context` enriches the artifact, key by key (a user's concurrent edit
     * of other keys stands), as a revision of its own that names this run, so a retry finds it rather
     * than writing it again. Its event goes out with its claim (the outbox); search and the embedding
     * follow the new revision.
     */
    async mergeArtifactContext(input: { artifactId: string; context: Record<string, unknown> }): Promise<boolean> {
      const { info } = Context.current();
      const merged = await deps.artifacts.mergeContext(input.artifactId, input.context, {
        invocationId: (info.workflowExecution?.workflowId ?? info.activityId).replace(/^invoke-/, ''),
        // Claims made since the run's first attempt was scheduled (a minute's leeway for clocks).
        since: new Date(info.scheduledTimestampMs - 60_000),
      });
      if (!merged) return false;
      await deps.changes.record(input.artifactId);
      if (merged.revised && deps.taskQueue) {
        const { client } = Context.current();
        await new IndexingWorkflows(() => client, deps.taskQueue).start(merged.doc);
      }
      return true;
    },
  };
}
