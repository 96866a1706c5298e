import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/server';

// The wire of the `io.modelcontextprotocol/tasks` extension (SEP-2663, revision 2026-07-28): a
// tools/call answered with a task handle (`resultType: "task"`), then `tasks/get`, `tasks/update` and
// `tasks/cancel` by its id. Nothing here runs anything; kinds.ts says what a task stands for.

export const tasksExtension = 'io.modelcontextprotocol/tasks';

/**
 * How long a task handle outlives the work it stands for: a week after the work could last (a commit
 * waits up to its expiry for a person). The work and its record (the commit, the invocation) outlive
 * the handle; only the handle goes.
 */
export const taskGraceMs = 7 * 24 * 3600 * 1000;

/** How often a client is asked to poll: a person's approval takes minutes, a tool call seconds. */
export const pollIntervalMs = 2000;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a request's `_meta` declares the tasks extension among its per-request client capabilities:
 * a task is never returned to a client that did not (the extension's MUST NOT).
 */
export function declaresTasks(meta: unknown): boolean {
  if (!isObject(meta)) return false;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  return isObject(capabilities) && isObject(capabilities.extensions) && isObject(capabilities.extensions[tasksExtension]);
}

export const taskIdParams = z.looseObject({ taskId: z.string().min(1).max(300) });
export const updateParams = taskIdParams.extend({ inputResponses: z.record(z.string(), z.unknown()) });

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Where a task stands, as its kind reads it from the workflow and the store. */
export interface TaskState {
  status: TaskStatus;
  statusMessage?: string;
  lastUpdatedAt: Date;
  result?: CallToolResult;
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  error?: { code: number; message: string };
}

/** The Task the wire carries (a CreateTaskResult's body, or a DetailedTask for tasks/get). */
export function wireTask(task: { _id: string; created_at: Date; expires_at: Date }, state: TaskState): Record<string, unknown> {
  const { _id: taskId, created_at: createdAt } = task;
  return {
    taskId,
    status: state.status,
    ...(state.statusMessage ? { statusMessage: state.statusMessage } : {}),
    createdAt: createdAt.toISOString(),
    lastUpdatedAt: (state.lastUpdatedAt > createdAt ? state.lastUpdatedAt : createdAt).toISOString(),
    ttlMs: task.expires_at.getTime() - createdAt.getTime(),
    pollIntervalMs,
    // The tool's result as tools/call would have carried it on 2026-07-28: with its result type.
    ...(state.status === 'completed' && state.result ? { result: { resultType: 'complete', ...state.result } } : {}),
    ...(state.status === 'input_required' && state.inputRequests ? { inputRequests: state.inputRequests } : {}),
    ...(state.status === 'failed' && state.error ? { error: state.error } : {}),
  };
}

/** A tool's structured result as tools/call carries it (the same shape callPlatformTool answers). */
export function toolResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** A tool's failure as a completed task carries it (isError, the problem in `_meta` as tool errors do). */
export function toolFailure(text: string, detail: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], _meta: { 'platform/problem': detail } };
}
