import { defineQuery } from '@temporalio/workflow';
import type { AgentRunState } from './agent-run.js';
import type { McpRunState } from './mcp-run.js';
import type { TransformRunState } from './transform-run.js';

/** The state of any invocation: a tool call, an agent run or a transform run. */
export type InvocationState = McpRunState | AgentRunState | TransformRunState;

/**
 * Every invocation workflow (`mcpRun`, `agentRun`, `transformRun`) answers the `state` query with its
 * state, under one id scheme (`contracts/ids.ts`): the one door of `GET /invocations/{id}`.
 */
export const invocationStateQuery = defineQuery<InvocationState>('state');
