import { defineQuery } from '@temporalio/workflow';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { DelegationRequest } from '../../identity/delegation.js';
import type { AutomationTrigger } from './agent-run.js';

/** The contract of `mcpRun` (workflows/mcp-run.ts): one external tool call, resource read or catalog refresh. */
export const mcpRunType = 'mcpRun';
export type McpRun = (input: McpRunInput) => Promise<McpRunResult>;

/** What one external MCP run does. Arguments are the caller's; no credential is ever part of it. */
export type McpOperation =
  | { kind: 'call_tool'; name: string; arguments: Record<string, unknown>; timeoutMs?: number; maxTotalMs: number }
  | { kind: 'read_resource'; uri: string; timeoutMs: number }
  | { kind: 'refresh_catalog' };

export interface McpRunInput {
  invocationId: string;
  serverId: string;
  /** The registration's revision the caller was authorised against (a warm connection to it is reused as is). */
  serverRevision?: number;
  workspaceId: string;
  /** The person the run is for: an oauth2 server is called with their connection. */
  principalId: string;
  operation: McpOperation;
  /**
   * A viewer's call through the console (SPEC §5.7): the inputs of the delegation token a first-party
   * server receives. The token itself is minted by the activity, so it is never in this history.
   */
  delegation?: DelegationRequest;
  /**
   * A §4.6 lifecycle call: on_create's `context` is merged into this artifact. `beforeWrite` (issue
   * #37): on_create validating an artifact not written yet: the call's arguments carry it, and the API
   * writes it (with the context) only if the server accepts. Absent in older runs: they replay as they ran.
   */
  lifecycle?: { tool: string; artifactId: string; beforeWrite?: boolean };
  /** Started by an automation: which, and the event (shown in the run's input). */
  automation?: AutomationTrigger;
  /**
   * A tool call expected to be short (its attempt timeout is at most MCP_CALL_LOCAL_MAX_SECONDS): made as
   * a local activity, without progress heartbeats. Absent in runs started before it existed: they replay as they ran.
   */
  local?: boolean;
}

export type McpRunResult =
  | { kind: 'tool_result'; result: CallToolResult }
  | { kind: 'resource'; result: ReadResourceResult }
  | { kind: 'catalog'; health: 'ok' | 'error'; tools: number; error?: string };

export interface McpRunState {
  invocation_id: string;
  server_id: string;
  workspace_id: string;
  principal_id: string;
  operation: McpOperation['kind'];
  tool?: string;
  uri?: string;
  status: 'running' | 'completed';
  started_at: string;
  completed_at?: string;
  outcome?: McpRunResult;
}

export const mcpRunStateQuery = defineQuery<McpRunState>('state');
