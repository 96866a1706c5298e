import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, type CallToolResult, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { Problem, problemTypePrefix, problems } from '../../kernel/errors/problem.js';
import type { OperationContext } from '../../operations/context.js';
import { isStorageUnavailable } from '../../store/deadline.js';
import type { ContainerKind } from '../../store/containers.js';
import { containerWithArtifacts, tools, type ToolDef } from './tools.js';
import { platformIcon, platformInfo } from '../../kernel/platform-info.js';

/** §2.12: the platform's own items carry the `platform` icon marker unless they name their own. */
export const serverIcon = 'platform';

/** Where an error result carries its problem details for programs: the result's `_meta`, under this key. */
export const problemMetaKey = 'platform/problem';

/**
 * A tool failure as the model sees it: what went wrong and what to do, never a stack. Programs find
 * the problem (type, status, detail, invalid_params) in `_meta["platform/problem"]`, and, for tools
 * that declare no output schema, in `structuredContent` too. A tool with an output schema sends no
 * `structuredContent` on an error: clients validate it against that schema (the TS SDK throws on a
 * mismatch), and the problem is not of that shape.
 */
function toolError(err: unknown, ctx: OperationContext, tool: ToolDef): CallToolResult {
  if (err instanceof Problem) {
    const body = err.body();
    const detail = {
      type: body.type,
      status: body.status,
      detail: body.detail ?? body.title,
      ...(body.invalid_params ? { invalid_params: body.invalid_params } : {}),
    };
    return {
      isError: true,
      content: [{ type: 'text', text: `${body.detail ?? body.title} (${body.type.slice(problemTypePrefix.length)}, ${body.status})` }],
      ...(tool.output ? {} : { structuredContent: detail }),
      _meta: { [problemMetaKey]: detail },
    };
  }
  ctx.services.logger.error({ err, tool: tool.name, request_id: ctx.state.requestId }, 'MCP tool failed');
  return { isError: true, content: [{ type: 'text', text: `The tool failed unexpectedly (request ${ctx.state.requestId}).` }] };
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The MCP error code for a resource that does not exist (or is not visible). */
const resourceNotFound = -32002;

/**
 * A JSON-RPC error for the client. Not an McpError: that prefixes its message with "MCP error <code>:",
 * the SDK sends the message as it is, and the client's McpError prefixes it again.
 */
function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/** The request's operation context, which the endpoint hands over as the request's auth info. */
function operationOf(extra: Extra): OperationContext {
  const operation = extra.authInfo?.extra?.operation as OperationContext | undefined;
  if (!operation) throw new Error('MCP request without an operation context');
  return operation;
}

/** Runs a tool for the request's principal; `status` is what REST would have answered. */
export async function callPlatformTool(
  ctx: OperationContext,
  tool: ToolDef,
  input: unknown,
): Promise<{ result: CallToolResult; status: number }> {
  try {
    if (!ctx.state.principal!.scopes.allows(tool.access)) {
      return {
        status: 403,
        result: {
          isError: true,
          content: [{ type: 'text', text: `This tool needs the ${tool.access} scope, which your token does not carry.` }],
        },
      };
    }
    const result = (await tool.run(ctx, input as never)) as Record<string, unknown>;
    return { status: 200, result: { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result } };
  } catch (caught) {
    // Storage that does not answer is a 503 here as on REST: an isError result the client may retry.
    const err = isStorageUnavailable(caught) ? problems.storageUnavailable() : caught;
    if (err !== caught) ctx.services.logger.warn({ err: caught, tool: tool.name, request_id: ctx.state.requestId }, 'storage unavailable');
    return { status: err instanceof Problem ? err.status : 500, result: toolError(err, ctx, tool) };
  }
}

/**
 * A credential acting for a person is audited per tool call, not only per POST /mcp: the entry names
 * the tool and what became of it.
 */
async function audit(ctx: OperationContext, tool: ToolDef, status: number): Promise<void> {
  const principal = ctx.state.principal!;
  if (!principal.onBehalfOf) return;
  await ctx.services.audit
    .record({
      credential_kind: principal.actor.kind,
      credential_id: principal.actor.id,
      person_id: principal.subject,
      method: 'MCP',
      path: `tools/call ${tool.name}`,
      status,
      request_id: ctx.state.requestId,
    })
    .catch((err) => ctx.services.logger.error({ err, request_id: ctx.state.requestId }, 'audit entry not written'));
}

function register(server: McpServer, tool: ToolDef): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input,
      ...(tool.output ? { outputSchema: tool.output } : {}),
      annotations: tool.annotations,
      _meta: { icon: tool.icon, scope: tool.access },
    },
    async (input: unknown, extra: Extra): Promise<CallToolResult> => {
      const ctx = operationOf(extra);
      const { result, status } = await callPlatformTool(ctx, tool, input);
      await audit(ctx, tool, status);
      return result;
    },
  );
}

function registerContainers(server: McpServer, kind: ContainerKind): void {
  const plural = kind === 'collection' ? 'collections' : 'workspaces';
  const template = new ResourceTemplate(`platform://${plural}/{id}`, {
    // §4.5: resources/list returns the collections the caller can access (workspaces are read by URI).
    list:
      kind === 'collection'
        ? async (extra) => {
            const ctx = operationOf(extra);
            const principal = ctx.state.principal!;
            if (!principal.scopes.allows('artifact:read')) return { resources: [] };
            const page = await ctx.services.containers.list('collection', principal, 200);
            return {
              resources: page.items.map((c) => ({
                uri: `platform://collections/${c._id}`,
                name: c.name,
                title: c.name,
                description: c.description || undefined,
                mimeType: 'application/json',
              })),
            };
          }
        : undefined,
  });
  server.registerResource(
    plural,
    template,
    { title: kind === 'collection' ? 'Collection' : 'Workspace', mimeType: 'application/json', _meta: { icon: serverIcon } },
    async (uri, vars, extra) => {
      const ctx = operationOf(extra);
      if (!ctx.state.principal!.scopes.allows('artifact:read'))
        throw rpcError(ErrorCode.InvalidRequest, 'This resource needs the artifact:read scope.');
      const body = await containerWithArtifacts(ctx, kind, String(vars.id)).catch((err) => {
        if (err instanceof Problem && err.status === 404) throw rpcError(resourceNotFound, err.message, { uri: uri.href });
        if (err instanceof Problem) throw rpcError(ErrorCode.InvalidParams, err.message);
        throw err;
      });
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body) }] };
    },
  );
}

/** What a client's model is told about this server at initialize (MCP `instructions`). */
const instructions =
  'The workspace knowledge platform. Drafts live in workspaces and are yours to change (create_artifact, ' +
  'update_artifact, manage_artifact); collections hold committed, versioned knowledge that changes only ' +
  'through a commit a person approves (commit_preview, commit_workspace). Find things with search or ask; ' +
  'browse_workspaces and browse_collections list what you can reach. Errors are tool results with isError, ' +
  'saying what went wrong and what to do.';

/** A server with every tool and resource; which principal it serves comes with each request, never with the server. */
function createMcpServer(): McpServer {
  const server = new McpServer(
    { ...platformInfo, icons: [{ src: platformIcon, mimeType: 'image/svg+xml' }], _meta: { icon: serverIcon } } as typeof platformInfo,
    { capabilities: { tools: {}, resources: {} }, instructions },
  );
  for (const tool of tools) register(server, tool);
  registerContainers(server, 'collection');
  registerContainers(server, 'workspace');
  // Stateless: no stream outlives a request, so no list_changed notification could be delivered.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false } });
  return server;
}

/** Idle servers, reused: building one (twelve tools, their schemas) costs more than a search. */
const idle: McpServer[] = [];
const maxIdle = 64;

/**
 * Answers one stateless Streamable HTTP request: a fresh transport on a pooled server, the caller's
 * operation context passed as the request's auth info, the answer as JSON.
 */
export async function serveMcp(operation: OperationContext, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const server = idle.pop() ?? createMcpServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const principal = operation.state.principal!;
  Object.assign(req, { auth: { token: '', clientId: principal.actor.id, scopes: principal.scopes.toJSON(), extra: { operation } } });
  const closed = once(res, 'close');
  void closed.then(() =>
    server
      .close()
      .then(() => idle.length < maxIdle && idle.push(server))
      .catch((err) => operation.services.logger.warn({ err, request_id: operation.state.requestId }, 'MCP server not reusable')),
  );
  try {
    await server.connect(transport);
    // A client gone mid-call never gets its answer: stop waiting for it then.
    await Promise.race([transport.handleRequest(req as IncomingMessage & { auth?: never }, res, body), closed]);
  } catch (err) {
    operation.services.logger.error({ err, request_id: operation.state.requestId }, 'MCP request failed');
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32603, message: `Internal error (request ${operation.state.requestId})` },
        }),
      );
    }
  }
}
