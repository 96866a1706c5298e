import { defineQuery, defineUpdate } from '@temporalio/workflow';

export const connectionFlowType = 'connectionFlow';
export type ConnectionFlow = (input: ConnectionFlowInput) => Promise<ConnectionFlowState>;

export interface TokenState {
  tokenVersion: number;
  expiresAt?: number;
  lifetimeMs?: number;
  /** The provider issued a refresh token; without one the connection needs consent again at expiry. */
  refreshable: boolean;
}

/**
 * A person's OAuth connection (`connection-<connection id>`): consent attempts, the code exchange, and
 * refreshes before expiry. Its history holds attempt ids, token versions and expiry times, never a
 * token, a code, a verifier or a `state`: those live sealed in MongoDB, and only activities open them.
 *
 * The run lasts while the connection is pending or active; a failed consent, a revoked refresh token
 * (needs re-consent) or a delete ends it. A later start begins a new run under the same id.
 */
export interface ConnectionFlowInput {
  connectionId: string;
  userId: string;
  authorizerId: string;
  consentTimeoutMs: number;
  /** Refreshes per run before continue-as-new keeps the history short. */
  refreshesPerRun: number;
  /** Carried over by continue-as-new. */
  carried?: TokenState;
}

export type ConnectionFlowStatus = 'pending' | 'active' | 'needs_reconsent' | 'failed' | 'deleted';

export interface ConnectionFlowState {
  status: ConnectionFlowStatus;
  token_version: number;
  expires_at?: string;
  next_refresh_at?: string;
  attempt?: { id: string; expires_at: string };
  refreshes_this_run: number;
}

export interface CallbackOutcome {
  status: ConnectionFlowStatus;
  error?: { code: string; detail: string };
}

export const connectionFlowStateQuery = defineQuery<ConnectionFlowState>('state');
/** Begins a consent attempt; answers with its id and expiry once the attempt is recorded. */
export const beginUpdate = defineUpdate<{ attempt_id: string; expires_at: string }>('begin');
/** The provider redirected back for this attempt (its answer is already recorded); answers once the code is exchanged. */
export const callbackUpdate = defineUpdate<CallbackOutcome, [{ attemptId: string }]>('callback');
/** Refreshes now unless the token has changed since `seenVersion` (a projection found it expiring). */
export const refreshUpdate = defineUpdate<{ status: ConnectionFlowStatus; token_version: number }, [{ seenVersion: number }]>('refresh');
/** Revokes at the provider, deletes the record, ends the run. */
export const deleteUpdate = defineUpdate<{ revoked_at_provider: boolean }>('delete');

export const connectionGone = 'ConnectionGone';
