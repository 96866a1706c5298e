import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { RecordedAction } from '../../invocations/proposed-actions/schema.js';
import type { PrincipalSnapshot } from '../../identity/principal.js';

/** The contract of `agentRun` (workflows/agent-run.ts). */
export const agentRunType = 'agentRun';
/** The workflow's signature, for clients that start it by type name. */
export type AgentRun = (input: AgentRunInput) => Promise<AgentRunState>;

/**
 * An invocation an automation started (issue #21): the automation, the event that caused it, and the
 * depth its writes carry (the event's depth + 1) as `provenance.source.automation`, for the loop guard.
 */
export interface AutomationTrigger {
  automation_id: string;
  event_id: string;
  event_kind: string;
  /** The artifact the event is about. */
  artifact_id: string;
  depth: number;
}

export interface ProposeInput {
  invocationId: string;
  agent: string;
  workspaceId: string;
  /** The context artifacts; empty: the workspace's drafts. */
  artifactIds: string[];
  input: string | null;
  params: unknown;
  principal: PrincipalSnapshot;
  /** An agent served by an MCP server (agent name `mcp:<tool>`): the server, its revision and the tool. */
  server?: { id: string; revision: number; tool: string };
  /** Started by an automation: which, and the event. */
  automation?: AutomationTrigger;
}

export type InvocationMode = 'preview' | 'apply';

export interface AgentRunInput extends ProposeInput {
  mode: InvocationMode;
  /** The agent calls out (a model, an MCP server): its step runs as a regular activity (long, retried once), else as a local one. */
  callsOut: boolean;
  previewExpirySeconds: number;
}

/**
 * - running: the agent is at work
 * - awaiting_decision: preview mode, proposals recorded, waiting for apply or discard
 * - applying, then completed
 * - discarded, expired (no decision in time), refused (apply mode without every permission), failed
 */
export type InvocationStatus = 'running' | 'awaiting_decision' | 'applying' | 'completed' | 'discarded' | 'expired' | 'refused' | 'failed';
export const settledStatuses: InvocationStatus[] = ['awaiting_decision', 'completed', 'discarded', 'expired', 'refused', 'failed'];

export interface Decision {
  action: 'apply' | 'discard';
  by: string;
  at: string;
  action_ids?: string[];
  /** An apply that also discards every action still proposed (issue #37). */
  discard_rest?: boolean;
}

export interface AgentRunState {
  invocation_id: string;
  kind: 'agent_run';
  agent: string;
  /** An agent served by an MCP server: the server. */
  server_id?: string;
  mode: InvocationMode;
  workspace_id: string;
  principal_id: string;
  artifact_ids: string[];
  status: InvocationStatus;
  output: string | null;
  actions: RecordedAction[];
  progress: { applied: number; total: number };
  /** The last decision taken. */
  decision?: Decision;
  /** Every decision, in the order taken: a preview may be decided in parts (issue #37). */
  decisions?: Decision[];
  error?: { type: string; message: string };
  started_at: string;
  expires_at?: string;
  completed_at?: string;
  automation?: AutomationTrigger;
}

export interface ApplyInput {
  /** Who decided: their permissions are the ones each action is applied with. */
  by: PrincipalSnapshot;
  /** A subset of the proposed actions; all of them when absent. */
  action_ids?: string[];
  /** After applying `action_ids`, discard every action still proposed: the run ends. */
  discard_rest?: boolean;
}

/** Discards some proposed actions (`action_ids`), or every one still proposed. */
export interface DiscardInput {
  by: string;
  action_ids?: string[];
}

export const agentRunStateQuery = defineQuery<AgentRunState>('state');
/** Answers once the run has settled: proposals awaiting a decision, or an end. */
export const settledUpdate = defineUpdate<AgentRunState>('settled');
export const applyUpdate = defineUpdate<AgentRunState, [ApplyInput]>('apply');
export const discardUpdate = defineUpdate<AgentRunState, [DiscardInput]>('discard');
/** The failure type of a refused decision; the API answers 409 `invocation-not-pending`. */
export const notPendingFailure = 'InvocationNotPending';
export const unknownActionsFailure = 'UnknownActions';
/** Actions named in a decision that were already decided otherwise (skipped, discarded, refused, conflict); the API answers 409 `action-not-proposed`. */
export const decidedActionsFailure = 'ActionsDecided';
