import { ProtocolErrorCode, type CallToolResult, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { OperationContext } from '../../operations/services.js';
import type { McpTaskDoc } from '../../store/mcp-tasks.js';
import type { ToolDef } from '../tools.js';
import { cancelTask, readTask, taskKinds } from './kinds.js';
import { taskIdParams, tasksExtension, updateParams, wireTask } from './protocol.js';

// tools/call answered with a task, and the extension's three methods. A task belongs to the person who
// made it: anyone else (another person, a token acting for no one) is told it does not exist.

/** Whether this tool answers a task-capable client with a task when its work outlasts the moment. */
export const makesTasks = (tool: ToolDef) => taskKinds.has(tool.name);

/**
 * Runs a long tool for a client that declared the tasks extension: its plain result when the work
 * finished within the moment, else a CreateTaskResult, returned only once the task is recorded and its
 * workflow started (the extension's "durably created": a tasks/get for it resolves).
 */
export async function callAsTask(ctx: OperationContext, tool: ToolDef, input: unknown): Promise<CallToolResult | Record<string, unknown>> {
  const started = await taskKinds.get(tool.name)!.start(ctx, tool, input as Record<string, unknown>);
  if ('result' in started) return started.result;
  const subject = ctx.state.principal.subject;
  const doc = await ctx.services.mcpTasks.create({ ...started.task, subject, tool: tool.name, created_at: new Date() });
  if (doc.subject !== subject) throw new Error(`task ${doc._id} belongs to someone else`);
  return { resultType: 'task', ...wireTask(doc._id, doc.created_at, await readTask(ctx, doc)) };
}

const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });

async function ownTask(ctx: OperationContext, taskId: string): Promise<McpTaskDoc> {
  const doc = await ctx.services.mcpTasks.get(taskId);
  if (!doc || doc.subject !== ctx.state.principal.subject) throw rpcError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);
  return doc;
}

/** tasks/get, tasks/update and tasks/cancel, and the extension in the server's capabilities. */
export function registerTasks(server: McpServer, operationOf: (extra: ServerContext) => OperationContext): void {
  server.server.registerCapabilities({ extensions: { [tasksExtension]: {} } });
  server.server.setRequestHandler('tasks/get', { params: taskIdParams }, async ({ taskId }, extra) => {
    const ctx = operationOf(extra);
    const doc = await ownTask(ctx, taskId);
    return wireTask(doc._id, doc.created_at, await readTask(ctx, doc));
  });
  // The only input a task asks for is a person's decision in the console: answers sent here are
  // acknowledged and change nothing (an agent's "accept" must never approve a commit).
  server.server.setRequestHandler('tasks/update', { params: updateParams }, async ({ taskId }, extra) => {
    await ownTask(operationOf(extra), taskId);
    return {};
  });
  server.server.setRequestHandler('tasks/cancel', { params: taskIdParams }, async ({ taskId }, extra) => {
    const ctx = operationOf(extra);
    await cancelTask(ctx, await ownTask(ctx, taskId));
    return {};
  });
}
