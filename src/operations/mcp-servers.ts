import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { requireGrant } from '../identity/grants.js';
import { delegationRequest } from '../identity/delegation.js';
import type { Principal } from '../identity/principal.js';
import { baseType, isPlatformType, mcpServerType } from '../artifacts/content-types/index.js';
import { mcpServerContent, type McpServerContent } from '../artifacts/content-types/mcp-server.js';
import { Problem, problems } from '../kernel/errors/problem.js';
import { isBuiltinServer } from './builtin-servers.js';
import { invocationWorkflowId } from '../workflows/contracts/ids.js';
import { invocationIdFor } from '../invocations/idempotency.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { ContainerDoc } from '../store/containers.js';
import type { McpOperation, McpRunResult } from '../workflows/contracts/mcp-run.js';
import { artifactFields, createArtifact, visibleArtifact } from './artifacts.js';
import { invokesServers } from './mcp-permissions.js';
import type { OperationContext } from './services.js';
import { presentInvocation } from '../presenters/invocations.js';

export const waitSeconds = z
  .number()
  .min(0)
  .max(120)
  .optional()
  .describe('How long to wait for the answer before returning 202 and the invocation to poll.');

/** `POST /artifacts/{server_id}/invoke` on an MCP server artifact (§4.3). */
export const callToolBody = z.strictObject({
  name: z.string().min(1).max(256),
  arguments: z.record(z.string(), z.unknown()).default({}),
  timeout_seconds: z.int().min(1).max(3600).optional().describe('Fail after this long without an answer or a progress notification.'),
  wait_seconds: waitSeconds,
});

/** `POST /artifacts/{server_id}/op/resources_read` (docs/decisions.md). */
export const resourceReadBody = z.strictObject({ uri: z.string().min(1).max(4096), wait_seconds: waitSeconds });

/** `POST /artifacts/{server_id}/op/resources_import` (docs/decisions.md). */
export const resourceImportBody = z.strictObject({
  uri: z.string().min(1).max(4096),
  title: z.string().trim().min(1).max(500).optional(),
  workspace_id: z
    .uuid({ error: 'must be a UUID' })
    .optional()
    .describe(
      "Where the artifact goes; the server's own workspace by default (your default workspace when the server is in a collection).",
    ),
});

export interface InvocableServer {
  doc: ArtifactDoc;
  container: ContainerDoc;
  content: McpServerContent;
}

/**
 * A registered server the principal may call: an MCP server artifact in a workspace it sees, with the
 * I (invoke) grant there. External server access belongs to a workspace (§1 boundary 4): a server
 * artifact in a collection is a shared template, and is not called from there.
 */
export async function invocableServer(
  ctx: OperationContext,
  id: string,
  found?: { doc: ArtifactDoc; container: ContainerDoc },
): Promise<InvocableServer> {
  const { doc, container } = found ?? (await visibleArtifact(ctx, id));
  if (baseType(doc.content_type) !== mcpServerType) {
    throw problems.conflict('not-an-mcp-server', `Artifact ${id} is a ${doc.content_type}, not an MCP server (${mcpServerType}).`);
  }
  if (container.kind !== 'workspace') {
    throw problems.conflict(
      'server-not-in-workspace',
      `MCP server ${id} is in a collection. External servers are called from a workspace: copy it into one.`,
    );
  }
  if (doc.archived_at) throw problems.conflict('archived-artifact', `MCP server ${id} is archived; unarchive it to call it.`);
  requireInvoke(ctx, container);
  return { doc, container, content: mcpServerContent.parse(JSON.parse(doc.content)) };
}

function requireInvokeScope(principal: Principal): void {
  if (!invokesServers(principal)) throw problems.insufficientScope(`artifact:invoke (for ${mcpServerType})`);
}

function requireInvoke(ctx: OperationContext, container: ContainerDoc): void {
  requireInvokeScope(ctx.state.principal);
  requireGrant(container, ctx.state.principal, 'I');
}

export interface Answer {
  status: 200 | 201 | 202;
  body: unknown;
  location?: string;
}

/** Starts a run for this request (or finds the one a retried request started) and waits its bounded time. */
async function run(
  ctx: OperationContext,
  server: InvocableServer,
  operation: McpOperation,
  idempotencyKey: string | undefined,
  waitS: number | undefined,
) {
  const principal = ctx.state.principal;
  const invocationId = invocationIdFor(principal.subject, server.doc._id, idempotencyKey, operation);
  const workflowId = invocationWorkflowId(invocationId);
  // A tool call through the console (a hosted viewer's) tells a first-party server whom it is for (§5.7).
  const delegation = operation.kind === 'call_tool' ? delegationRequest(principal, server.container) : null;
  const input = {
    invocationId,
    serverId: server.doc._id,
    serverRevision: server.doc.revision,
    workspaceId: server.container._id,
    principalId: principal.subject,
    operation,
    ...(delegation ? { delegation } : {}),
  };
  await ctx.services.toolCallWorkflows.start(workflowId, input);
  const outcome = await ctx.services.toolCallWorkflows.wait(
    workflowId,
    Math.min(waitS ?? ctx.services.config.MCP_INVOKE_WAIT_SECONDS, 120) * 1000,
  );
  const state = {
    invocation_id: invocationId,
    server_id: server.doc._id,
    workspace_id: server.container._id,
    operation: operation.kind,
    ...(operation.kind === 'call_tool' ? { tool: operation.name } : {}),
    ...(operation.kind === 'read_resource' ? { uri: operation.uri } : {}),
    started_at: '',
  };
  return { outcome, state };
}

const pending = (invocation: ReturnType<typeof presentInvocation>): Answer => ({
  status: 202,
  body: invocation,
  location: invocation.poll,
});

/** Calls a tool of a server: the result when it comes within the wait, else 202 and the invocation to poll. */
export async function callTool(
  ctx: OperationContext,
  serverId: string,
  body: z.infer<typeof callToolBody>,
  idempotencyKey?: string,
  found?: { doc: ArtifactDoc; container: ContainerDoc },
): Promise<Answer> {
  if (isBuiltinServer(serverId)) {
    requireInvokeScope(ctx.state.principal);
    return {
      status: 200,
      body: builtinInvocation(serverId, body.name, await ctx.services.builtinServers.call(ctx, body.name, body.arguments)),
    };
  }
  const server = await invocableServer(ctx, serverId, found);
  const { config } = ctx.services;
  const timeoutS = body.timeout_seconds ?? server.content.timeout_seconds ?? config.MCP_CALL_TIMEOUT_SECONDS;
  const operation: McpOperation = {
    kind: 'call_tool',
    name: body.name,
    arguments: body.arguments,
    timeoutMs: timeoutS * 1000,
    maxTotalMs: Math.max(config.MCP_CALL_MAX_SECONDS, timeoutS) * 1000,
  };
  const { outcome, state } = await run(ctx, server, operation, idempotencyKey, body.wait_seconds);
  const invocation = presentInvocation(state, outcome);
  return outcome ? { status: 200, body: invocation } : pending(invocation);
}

/** A built-in persona's call ran in-process: it has no workflow to poll. */
function builtinInvocation(serverId: string, tool: string, result: CallToolResult) {
  return {
    invocation_id: null,
    workflow_id: null,
    kind: 'mcp_tool_call',
    server_id: serverId,
    workspace_id: null,
    tool,
    status: 'completed',
    result,
  };
}

/** A failed read as a problem: the server's answer (status, truncated body) in its detail. */
function serverFailed(outcome: McpRunResult): Problem {
  const result: CallToolResult =
    outcome.kind === 'tool_result' ? outcome.result : { isError: true, content: [{ type: 'text', text: 'The read did not complete.' }] };
  const detail = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join(' ');
  return new Problem(502, 'mcp-server-error', 'The MCP server did not answer the request', detail, {
    result: result.structuredContent ?? null,
  });
}

const readTimeoutMs = (ctx: OperationContext, server: InvocableServer) =>
  (server.content.timeout_seconds ?? ctx.services.config.MCP_CALL_TIMEOUT_SECONDS) * 1000;

export async function readResource(
  ctx: OperationContext,
  serverId: string,
  body: z.infer<typeof resourceReadBody>,
  idempotencyKey?: string,
): Promise<Answer> {
  const server = await invocableServer(ctx, serverId);
  const { outcome, state } = await run(
    ctx,
    server,
    { kind: 'read_resource', uri: body.uri, timeoutMs: readTimeoutMs(ctx, server) },
    idempotencyKey,
    body.wait_seconds,
  );
  if (!outcome) return pending(presentInvocation(state, null));
  if (outcome.kind !== 'resource') throw serverFailed(outcome);
  return { status: 200, body: { server_id: serverId, uri: body.uri, contents: outcome.result.contents } };
}

/** The first content of a read as artifact content: text as is, a blob as base64 (said so in context). */
function importedContent(read: ReadResourceResult, uri: string) {
  const item = read.contents.find((c) => c.uri === uri) ?? read.contents[0];
  if (!item)
    throw new Problem(502, 'mcp-server-error', 'The MCP server did not answer the request', `The server returned no contents for ${uri}.`);
  const isText = 'text' in item && typeof item.text === 'string';
  const fallback = isText ? 'text/plain' : 'application/octet-stream';
  // The server does not choose a platform type: an imported "MCP server registration" would be run.
  const declared = artifactFields.content_type.safeParse(item.mimeType).data;
  const contentType = declared && !isPlatformType(declared) ? declared : fallback;
  return {
    content: isText ? (item.text as string) : String((item as { blob: string }).blob),
    contentType,
    encoding: isText ? null : 'base64',
  };
}

/** Reads a resource and stores it as a new workspace draft that records where it came from. */
export async function importResource(
  ctx: OperationContext,
  serverId: string,
  body: z.infer<typeof resourceImportBody>,
): Promise<ArtifactDoc> {
  const server = await invocableServer(ctx, serverId);
  // A server committed into a collection imports into the caller's default workspace: collections change only by commit.
  const workspaceId = body.workspace_id ?? (server.container.kind === 'workspace' ? server.container._id : undefined);
  if (body.workspace_id && !(await ctx.services.containers.get('workspace', ctx.state.principal, body.workspace_id)))
    throw problems.notFound('workspace', body.workspace_id);
  const { outcome } = await run(
    ctx,
    server,
    { kind: 'read_resource', uri: body.uri, timeoutMs: readTimeoutMs(ctx, server) },
    undefined,
    ctx.services.config.MCP_INVOKE_WAIT_SECONDS,
  );
  if (!outcome)
    throw new Problem(
      504,
      'mcp-server-timeout',
      'The MCP server did not answer in time',
      `Reading ${body.uri} took longer than ${ctx.services.config.MCP_INVOKE_WAIT_SECONDS} s; nothing was imported.`,
    );
  if (outcome.kind !== 'resource') throw serverFailed(outcome);
  const read = importedContent(outcome.result, body.uri);
  return createArtifact(ctx, {
    title: body.title ?? (body.uri.split('/').filter(Boolean).pop() || body.uri).slice(0, 500),
    content_type: read.contentType,
    content: read.content,
    collection_id: workspaceId,
    context: {
      imported_from: {
        server_id: serverId,
        uri: body.uri,
        mime_type: read.contentType,
        ...(read.encoding ? { encoding: read.encoding } : {}),
      },
    },
    derived_from: serverId,
  });
}
