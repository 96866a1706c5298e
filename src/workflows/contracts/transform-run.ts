import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { PrincipalSnapshot } from '../../identity/principal.js';
import type { TransformContent, TransformStep } from '../../artifacts/content-types/transform.js';
import type { AutomationTrigger } from './agent-run.js';

/** The contract of `transformRun` (workflows/transform-run.ts). */
export const transformRunType = 'transformRun';
export type TransformRun = (input: TransformRunInput) => Promise<TransformRunState>;

export interface TransformRunInput {
  invocationId: string;
  transformId: string;
  /** The definition as it was when the run started: editing the artifact does not change a run in flight. */
  revision: number;
  definition: TransformContent;
  workspaceId: string;
  artifactIds: string[];
  input: string | null;
  principal: PrincipalSnapshot;
  /** Agents that call a model (their steps run their model call as a regular activity). */
  llmAgents: string[];
  /** MCP tool steps: each server's registration revision, as authorised when the run started. */
  serverRevisions: Record<string, number>;
  maxCallSeconds: number;
  /** Started by an automation: its agent steps' writes carry it. */
  automation?: AutomationTrigger;
}

export type StepStatus = 'pending' | 'running' | 'awaiting_approval' | 'completed' | 'failed' | 'skipped' | 'rejected' | 'expired';
export type TransformStatus = 'running' | 'awaiting_approval' | 'completed' | 'failed' | 'rejected' | 'expired';

export interface StepState {
  id: string;
  kind: TransformStep['kind'];
  status: StepStatus;
  attempts: number;
  output?: string | null;
  artifact_ids?: string[];
  /** The child run of an agent, LLM or tool step (its own invocation, readable by GET /invocations/{id}). */
  invocation_id?: string;
  decision?: { action: 'approve' | 'reject'; by: string; comment: string | null; at: string };
  error?: string;
  started_at?: string;
  completed_at?: string;
}

export interface TransformRunState {
  invocation_id: string;
  kind: 'transform';
  transform_id: string;
  revision: number;
  workspace_id: string;
  principal_id: string;
  status: TransformStatus;
  current_step: string | null;
  steps: StepState[];
  started_at: string;
  completed_at?: string;
  automation?: AutomationTrigger;
}

export interface ApprovalInput {
  by: string;
  comment: string | null;
}

export const transformRunStateQuery = defineQuery<TransformRunState>('state');
export const transformSettledUpdate = defineUpdate<TransformRunState>('settled');
export const approveStepUpdate = defineUpdate<TransformRunState, [ApprovalInput]>('approve');
export const rejectStepUpdate = defineUpdate<TransformRunState, [ApprovalInput]>('reject');
export const notAwaitingApproval = 'NotAwaitingApproval';
