import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../kernel/config/env.js';
import type { SubscriptionDoc } from '../store/subscriptions.js';
import { ArtifactId, PrincipalId, RunKind, SubscriptionState, WorkspaceId } from '../temporal/search-attributes.js';
import { subscriptionWorkflowId } from '../workflows/contracts/ids.js';
import {
  eventsRecordedSignal,
  resumeSignal,
  subscriptionDeliveryType,
  type DeliveryPolicy,
  type SubscriptionDelivery,
} from '../workflows/contracts/subscription-delivery.js';

/** Activities the delivery workflow runs between two continue-as-new. */
const continueAsNewAfter = 500;

export const deliveryPolicy = (config: Config): DeliveryPolicy => ({
  deliveryTimeoutMs: config.SUBSCRIPTION_DELIVERY_TIMEOUT_MS,
  retryInitialMs: config.SUBSCRIPTION_RETRY_INITIAL_MS,
  retryMaxMs: config.SUBSCRIPTION_RETRY_MAX_MS,
  pauseAfterAttempts: config.SUBSCRIPTION_PAUSE_AFTER_ATTEMPTS,
  pollSeconds: config.SUBSCRIPTION_POLL_SECONDS,
  continueAsNewAfter,
});

/**
 * Starts, wakes, resumes and stops subscription delivery workflows. `client` is a function so the
 * worker's activities can hand in `Context.current().client`.
 */
export class SubscriptionWorkflows {
  constructor(
    private readonly client: () => Client,
    private readonly config: Config,
  ) {}

  /**
   * Signal-with-start: wakes the run, or starts one from the stored cursor and state if none runs
   * (created just now, or lost). A deleted subscription's run ends on its first read.
   */
  async poke(sub: SubscriptionDoc, seq: number): Promise<void> {
    await this.client().workflow.signalWithStart<SubscriptionDelivery, [number]>(subscriptionDeliveryType, {
      workflowId: subscriptionWorkflowId(sub._id),
      taskQueue: this.config.TEMPORAL_TASK_QUEUE,
      args: [
        {
          subscriptionId: sub._id,
          workspaceId: sub.workspace_id,
          cursor: sub.cursor,
          policy: deliveryPolicy(this.config),
          state: sub.state,
          failures: sub.failures,
        },
      ],
      signal: eventsRecordedSignal,
      signalArgs: [seq],
      typedSearchAttributes: [
        { key: WorkspaceId, value: sub.workspace_id },
        { key: ArtifactId, value: sub.server_id },
        { key: PrincipalId, value: sub.owner_id },
        { key: RunKind, value: 'subscription' },
        { key: SubscriptionState, value: sub.state },
      ],
    });
  }

  /** Resumes a paused run (starting it, paused, if it was lost, so that the resume reaches it). */
  async resume(sub: SubscriptionDoc): Promise<void> {
    await this.poke(sub, sub.cursor);
    await this.client().workflow.getHandle(subscriptionWorkflowId(sub._id)).signal(resumeSignal);
  }

  /** Ends the run at once (an attempt under way may still complete). */
  async stop(subscriptionId: string): Promise<void> {
    try {
      await this.client().workflow.getHandle(subscriptionWorkflowId(subscriptionId)).terminate('subscription deleted');
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
}
