import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { Problem, problems } from '../kernel/errors/problem.js';
import type { Config } from '../kernel/config/env.js';
import type { ConnectionDoc } from '../store/connections.js';
import { ArtifactId, PrincipalId, RunKind, WorkspaceId } from '../temporal/search-attributes.js';
import {
  beginUpdate,
  callbackUpdate,
  connectionFlowType,
  connectionGone,
  deleteUpdate,
  refreshUpdate,
  type CallbackOutcome,
  type ConnectionFlow,
  type ConnectionFlowInput,
} from '../workflows/contracts/connection-flow.js';
import { connectionWorkflowId } from '../workflows/contracts/ids.js';

type ConnectionRef = Pick<ConnectionDoc, '_id' | 'user_id' | 'authorizer_id'>;

export const unusableAuthorizer = (detail: string) => new Problem(409, 'authorizer-unusable', 'The authorizer cannot be used', detail);

/** An update the workflow refused, as a problem: the connection is being deleted, or (from its activity) the authorizer is unusable. */
function updateProblem(err: unknown): never {
  if (!(err instanceof WorkflowUpdateFailedError)) throw err;
  const cause = err.cause as (Error & { type?: string; cause?: Error }) | undefined;
  if (cause?.type === connectionGone)
    throw problems.conflict('connection-deleting', 'The connection is being deleted; start again once it is gone.');
  throw unusableAuthorizer(cause?.cause?.message ?? cause?.message ?? err.message);
}

/**
 * The platform's side of a person's OAuth connection workflow (`connectionFlow`): begin a consent
 * attempt, hand it the provider's callback, refresh, delete. A begin or delete starts the workflow
 * when none runs for the connection.
 */
export class ConnectionWorkflows {
  constructor(
    /** A function, so that an activity can hand in its own context's client. */
    private readonly client: () => Client,
    private readonly config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'OAUTH_CONSENT_TIMEOUT_SECONDS' | 'OAUTH_REFRESHES_PER_RUN'>,
  ) {}

  /** How the workflow is started when a begin or delete finds none running. */
  private startOperation(doc: ConnectionRef, workspaceId: string) {
    const input: ConnectionFlowInput = {
      connectionId: doc._id,
      userId: doc.user_id,
      authorizerId: doc.authorizer_id,
      consentTimeoutMs: this.config.OAUTH_CONSENT_TIMEOUT_SECONDS * 1000,
      refreshesPerRun: this.config.OAUTH_REFRESHES_PER_RUN,
    };
    return new WithStartWorkflowOperation<ConnectionFlow>(connectionFlowType, {
      workflowId: connectionWorkflowId(doc._id),
      taskQueue: this.config.TEMPORAL_TASK_QUEUE,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: [
        { key: WorkspaceId, value: workspaceId },
        { key: ArtifactId, value: doc.authorizer_id },
        { key: PrincipalId, value: doc.user_id },
        { key: RunKind, value: 'oauth_connection' },
      ],
    });
  }

  /** Begins a consent attempt (its id and expiry once recorded). */
  begin(doc: ConnectionRef, workspaceId: string): Promise<{ attempt_id: string; expires_at: string }> {
    return this.client()
      .workflow.executeUpdateWithStart(beginUpdate, { startWorkflowOperation: this.startOperation(doc, workspaceId) })
      .catch(updateProblem);
  }

  /**
   * Hands the provider's (recorded) answer for an attempt to the workflow, which exchanges the code.
   * `waiting` when it has not finished within `waitMs`; null when no run awaits it any more.
   */
  async callback(connectionId: string, attemptId: string, waitMs: number): Promise<CallbackOutcome | 'waiting' | null> {
    const handle = this.client().workflow.getHandle(connectionWorkflowId(connectionId));
    try {
      const update = handle.executeUpdate(callbackUpdate, { args: [{ attemptId }] });
      update.catch(() => undefined); // still awaited below, unless the caller has been answered 'waiting' by then
      return await Promise.race([update, new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), waitMs).unref())]);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }

  /** Revokes at the provider and deletes the record, through the workflow (started if none runs), which then ends. */
  delete(doc: ConnectionRef, workspaceId: string): Promise<{ revoked_at_provider: boolean }> {
    return this.client()
      .workflow.executeUpdateWithStart(deleteUpdate, { startWorkflowOperation: this.startOperation(doc, workspaceId) })
      .catch(updateProblem);
  }

  /** A projection found the token expiring: refresh now, unless the token changed since `seenVersion` (the workflow serialises refreshes). */
  readonly refresh = async (connectionId: string, seenVersion: number): Promise<void> => {
    try {
      await this.client()
        .workflow.getHandle(connectionWorkflowId(connectionId))
        .executeUpdate(refreshUpdate, { args: [{ seenVersion }] });
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      // No run keeps the connection any more: what the record says is all there is.
    }
  };
}
