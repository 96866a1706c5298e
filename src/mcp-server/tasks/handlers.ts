import { ProtocolErrorCode, type CallToolResult, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { problems } from '../../kernel/errors/problem.js';
import type { OperationContext } from '../../operations/services.js';
import type { McpTaskDoc } from '../../store/mcp-tasks.js';
import { missingScope, tools, type ToolDef } from '../tools.js';
import { cancelTask, readTask, taskKinds } from './kinds.js';
import { taskGraceMs, taskIdParams, tasksExtension, updateParams, wireTask, type TaskState } from './protocol.js';

// tools/call answered with a task, and the extension's three methods. A task belongs to the credential
// that made it, for the person it acted for: any other (another person, another of their keys or
// clients) is told it does not exist.

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
  const { subject, actor } = ctx.state.principal;
  const now = new Date();
  const { lastsMs = 0, ...task } = started.task;
  const doc = await ctx.services.mcpTasks.create({
    ...task,
    subject,
    actor: { kind: actor.kind, id: actor.id },
    tool: tool.name,
    created_at: now,
    expires_at: new Date(now.getTime() + lastsMs + taskGraceMs),
  });
  // The same work asked again (an idempotency key) through another of the person's credentials: its task is that one's.
  if (!ownedBy(doc, ctx))
    throw problems.conflict(
      'task-of-another-credential',
      `This work is already the task ${doc._id} of another of your credentials: follow it there, or over REST.`,
    );
  // Handles past their time go as new ones come: the cost is this person's, never everyone's.
  void ctx.services.mcpTasks
    .prune(subject, now)
    .catch((err: unknown) => ctx.services.logger.warn({ err, request_id: ctx.state.requestId }, 'old MCP tasks not pruned'));
  // The task exists from here on: a state that cannot be read now is answered as working, and polled.
  const state = await readTask(ctx, doc).catch((err: unknown): TaskState => {
    ctx.services.logger.warn({ err, task: doc._id, request_id: ctx.state.requestId }, 'new MCP task state not read');
    return { status: 'working', lastUpdatedAt: now };
  });
  return { resultType: 'task', ...wireTask(doc, state) };
}

/** Whether the task was made by this very credential, for this person. */
const ownedBy = (doc: McpTaskDoc, ctx: OperationContext) => {
  const { subject, actor } = ctx.state.principal;
  return doc.subject === subject && doc.actor.kind === actor.kind && doc.actor.id === actor.id;
};

const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });

/**
 * The task, for the credential that made it, while it is kept and while that credential still holds
 * the scopes of the tool that made it; on an endpoint that offers only some tools (an MCP client
 * configuration's), only a task one of them made. Anything else is an unknown task: whether it exists
 * is not told.
 */
async function ownTask(ctx: OperationContext, taskId: string, offered?: ReadonlySet<string>): Promise<McpTaskDoc> {
  const doc = await ctx.services.mcpTasks.get(taskId);
  const tool = doc && (!offered || offered.has(doc.tool)) ? tools.find((t) => t.name === doc.tool) : undefined;
  const kept = doc && doc.expires_at.getTime() > Date.now();
  if (!doc || !tool || !kept || !ownedBy(doc, ctx) || missingScope(ctx.state.principal.scopes, tool))
    throw rpcError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);
  return doc;
}

/**
 * tasks/get, tasks/update and tasks/cancel, and the extension in the server's capabilities. `offered`:
 * the endpoint's tools when it offers fewer than all; a task another tool made is unknown there.
 */
export function registerTasks(
  server: McpServer,
  operationOf: (extra: ServerContext) => OperationContext,
  offered?: ReadonlySet<string>,
): void {
  server.server.registerCapabilities({ extensions: { [tasksExtension]: {} } });
  server.server.setRequestHandler('tasks/get', { params: taskIdParams }, async ({ taskId }, extra) => {
    const ctx = operationOf(extra);
    const doc = await ownTask(ctx, taskId, offered);
    return wireTask(doc, await readTask(ctx, doc));
  });
  // The only input a task asks for is a person's decision in the console: answers sent here are
  // acknowledged and change nothing (an agent's "accept" must never approve a commit).
  server.server.setRequestHandler('tasks/update', { params: updateParams }, async ({ taskId }, extra) => {
    await ownTask(operationOf(extra), taskId, offered);
    return {};
  });
  server.server.setRequestHandler('tasks/cancel', { params: taskIdParams }, async ({ taskId }, extra) => {
    const ctx = operationOf(extra);
    await cancelTask(ctx, await ownTask(ctx, taskId, offered));
    return {};
  });
}
