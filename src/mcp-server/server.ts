import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  ProtocolErrorCode,
  ResourceTemplate,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type CallToolResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { Problem, problemTypePrefix, problems } from '../kernel/errors/problem.js';
import { listContainers } from '../operations/containers.js';
import type { OperationContext } from '../operations/services.js';
import { mcpToolCalls, mcpToolDuration } from '../observability/metrics.js';
import { isStorageUnavailable } from '../store/deadline.js';
import type { ContainerKind } from '../store/containers.js';
import { containerWithArtifacts, missingScope, type ToolDef } from './tools.js';
import { serverIcon, serverInfo, toolTable, type PublishedTool } from './tool-table.js';
import { answerDirect, directToolCall, type DirectToolCall } from './direct-call.js';
import { registerApps } from './apps.js';
import { isListenRequest, registerSubscriptions, serveListen } from './subscriptions.js';
import type { Principal } from '../identity/principal.js';
import { callAsTask, makesTasks, registerTasks } from './tasks/handlers.js';
import { asksProgress, progressTokenOf, withProgress } from './tasks/progress.js';
import { SlowReader, writeWebResponse } from './web-response.js';
import { configurationChangeRefused, endpointInstructions, type EndpointLimits } from './client-endpoint.js';

/** How long a tool call's SSE answer waits for a client that stopped reading (its progress, then its result). */
const sseDrainTimeoutMs = 30_000;

export { serverIcon };
export type { EndpointLimits };

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

/**
 * A resource that does not exist (or is not visible): Invalid params with the URI in `data`, the code
 * 2026-07-28 gives it. The SDK (v2) sends -32602 for -32002 on every revision, so 2025 clients see it too.
 */
const resourceNotFound = ProtocolErrorCode.InvalidParams;

/**
 * A JSON-RPC error for the client. Not an McpError: that prefixes its message with "MCP error <code>:",
 * the SDK sends the message as it is, and the client's McpError prefixes it again.
 */
function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/** The request's operation context, which the endpoint hands over as the request's auth info. */
function operationOf(extra: ServerContext): OperationContext {
  const operation = extra.http?.authInfo?.extra?.operation as OperationContext | undefined;
  if (!operation) throw new Error('MCP request without an operation context');
  return operation;
}

/** Runs a tool for the request's principal; `status` is what REST would have answered. */
export async function callPlatformTool(
  ctx: OperationContext,
  tool: ToolDef,
  input: unknown,
  options: { tasks?: boolean; limits?: EndpointLimits } = {},
): Promise<{ result: CallToolResult; status: number }> {
  try {
    if (!ctx.state.principal.scopes.allows(tool.access)) {
      return {
        status: 403,
        result: {
          isError: true,
          content: [{ type: 'text', text: `This tool needs the ${tool.access} scope, which your token does not carry.` }],
        },
      };
    }
    // A configuration's endpoint never changes a configuration (client-endpoint.ts says why).
    const refused = options.limits && (await configurationChangeRefused(ctx, tool.name, input));
    if (refused) throw refused;
    if (options.tasks && makesTasks(tool)) {
      const answer = await callAsTask(ctx, tool, input);
      if (answer.resultType === 'task') return { status: 200, result: answer as CallToolResult };
      return { status: 200, result: { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer } };
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
  const principal = ctx.state.principal;
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

/**
 * One tools/call for the request's principal, whichever way it came (the SDK's server or the direct
 * path): the scope check and the tool (callPlatformTool), then its metrics and audit entry.
 */
async function runToolCall(
  ctx: OperationContext,
  tool: ToolDef,
  input: unknown,
  options: { tasks?: boolean; limits?: EndpointLimits } = {},
): Promise<CallToolResult> {
  const started = performance.now();
  const { result, status } = await callPlatformTool(ctx, tool, input, options);
  mcpToolCalls.inc({ tool: tool.name, outcome: status < 400 ? 'ok' : status < 500 ? 'refused' : 'failed' });
  mcpToolDuration.observe({ tool: tool.name }, (performance.now() - started) / 1000);
  await audit(ctx, tool, status);
  return result;
}

function register(server: McpServer, { def: tool, input, output, icons, meta }: PublishedTool, limits?: EndpointLimits): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: input,
      ...(output ? { outputSchema: output } : {}),
      annotations: tool.annotations,
      icons,
      _meta: meta,
    },
    async (args: unknown, extra: ServerContext): Promise<CallToolResult> => {
      const work = runToolCall(operationOf(extra), tool, args, { limits });
      const token = makesTasks(tool) ? progressTokenOf(extra.mcpReq._meta) : undefined;
      return token === undefined ? work : withProgress(work, token, (n) => extra.mcpReq.notify(n), tool.name, extra.mcpReq.signal);
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
            if (!ctx.state.principal.scopes.allows('artifact:read')) return { resources: [] };
            const page = await listContainers(ctx, 'collection', 200);
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
      if (!ctx.state.principal.scopes.allows('artifact:read'))
        throw rpcError(ProtocolErrorCode.InvalidRequest, 'This resource needs the artifact:read scope.');
      const body = await containerWithArtifacts(ctx, kind, String(vars.id)).catch((err) => {
        if (err instanceof Problem && err.status === 404) throw rpcError(resourceNotFound, err.message, { uri: uri.href });
        if (err instanceof Problem) throw rpcError(ProtocolErrorCode.InvalidParams, err.message);
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

/**
 * A server with every resource and the tools the request's principal may call (tools/list shows no
 * other; a call to another is answered 403 insufficient_scope before it gets here, api/routes/mcp.ts);
 * which principal it serves comes with each request's auth info. The tools come published from the
 * process-wide table (tool-table.ts): their schemas are converted once, not per server.
 */
function createMcpServer(authInfo: AuthInfo | undefined, era: 'modern' | 'legacy'): McpServer {
  const limits = authInfo?.extra?.limits as EndpointLimits | undefined;
  const server = new McpServer(serverInfo, {
    capabilities: { tools: {}, resources: {} },
    instructions: limits ? instructions + endpointInstructions(limits) : instructions,
  });
  const scopes = (authInfo?.extra?.operation as OperationContext | undefined)?.state.principal.scopes;
  for (const tool of toolTable.values()) {
    // An endpoint narrower than /mcp (an MCP client configuration) registers only its tools: any other is unknown there.
    if (limits && !limits.tools.has(tool.def.name)) continue;
    if (scopes && !missingScope(scopes, tool.def)) register(server, tool, limits);
  }
  registerContainers(server, 'collection');
  registerContainers(server, 'workspace');
  registerApps(server);
  registerSubscriptions(server, era);
  // Tasks are the 2026-07-28 extension's: a 2025-era client is never offered one (docs/decisions.md, MCP tasks).
  if (era === 'modern') registerTasks(server, operationOf, limits?.tools);
  // Stateless: no stream outlives a request, so no list_changed notification could be delivered.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false } });
  return server;
}

/**
 * One handler for the 2026-07-28 revision (a per-request `_meta` envelope, no initialize): each
 * request gets a fresh server from `createMcpServer`. 2025-era requests never reach it (`reject`):
 * `serveMcp` routes them to `serveLegacy` first, which answers as JSON.
 * `auto` answers one JSON body unless a tool emits a message before its result (none does yet).
 */
const modern = createMcpHandler(({ authInfo, era }) => createMcpServer(authInfo, era), { legacy: 'reject', responseMode: 'auto' });

/**
 * A 2025-era request (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05): the stateless Streamable HTTP
 * idiom (no session id), answered as one JSON body, as before the SDK's v2; its own fallback
 * (`legacy: 'stateless'`) would answer an SSE stream.
 */
async function serveLegacy(request: Request, authInfo: AuthInfo, parsedBody: unknown, stop: AbortSignal): Promise<Response> {
  const server = createMcpServer(authInfo, 'legacy');
  // One JSON body, unless the call asked for progress: then an SSE stream carries the notifications first.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !asksProgress(parsedBody),
  });
  await server.connect(transport);
  // A client gone mid-call never gets its answer: the tool may finish, nothing waits for it.
  stop.addEventListener('abort', () => void server.close().catch(() => undefined), { once: true });
  try {
    return await transport.handleRequest(request, { authInfo, parsedBody });
  } finally {
    void server.close().catch(() => undefined);
  }
}

/** The Koa request as a web Request: headers and method; the body Koa already parsed is handed over separately. */
function webRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(new URL(req.url ?? '/mcp', `http://${req.headers.host ?? 'localhost'}`), { method: req.method, headers, signal });
}

/** The answer to a request that failed inside the server: a JSON-RPC internal error naming the request. */
function internalError(operation: OperationContext, res: ServerResponse, err: unknown): void {
  operation.services.logger.error({ err, request_id: operation.state.requestId }, 'MCP request failed');
  if (res.headersSent) return;
  res.writeHead(500, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: `Internal error (request ${operation.state.requestId})` } }),
  );
}

/**
 * A tools/call the direct path takes (tool-call.ts): answered as the SDK would, without its
 * per-request server, transport or web Request/Response. A client gone mid-call never gets its
 * answer; the tool may finish, nothing waits for it.
 */
async function serveDirect(operation: OperationContext, call: DirectToolCall, res: ServerResponse, limits?: EndpointLimits): Promise<void> {
  try {
    const json = await answerDirect(call, ({ tool, input, tasks }) => runToolCall(operation, tool.def, input, { tasks, limits }));
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) });
    res.end(json);
  } catch (err) {
    if (!res.destroyed) internalError(operation, res, err);
  }
}

/**
 * Answers one stateless Streamable HTTP request, whatever the protocol revision: a tools/call the
 * direct path takes (most traffic) without the SDK's server; otherwise 2026-07-28 (its `_meta`
 * envelope names it) through the SDK's per-request handler, the 2025 revisions through
 * `serveLegacy`. The caller's operation context goes to the tools as the request's auth info; a
 * client gone mid-call aborts the exchange.
 */
export async function serveMcp(
  operation: OperationContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  options: { direct?: boolean; reauthenticate?: () => Promise<Principal | null>; limits?: EndpointLimits } = {},
): Promise<void> {
  const { limits } = options;
  let direct = options.direct === false ? undefined : directToolCall(req.headers, body);
  // A tool outside the endpoint's: the SDK's server, which does not have it, answers it as unknown.
  if (direct && limits && !limits.tools.has(direct.tool.def.name)) direct = undefined;
  if (direct) return serveDirect(operation, direct, res, limits);
  if (isListenRequest(body)) return serveListen(operation, req, res, body, options.reauthenticate);
  const principal = operation.state.principal;
  const authInfo: AuthInfo = {
    token: '',
    clientId: principal.actor.id,
    scopes: principal.scopes.toJSON(),
    extra: { operation, ...(limits ? { limits } : {}) },
  };
  const abort = new AbortController();
  res.once('close', () => !res.writableFinished && abort.abort());
  const gone = new Promise<never>((_, reject) => abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true }));
  gone.catch(() => undefined);
  try {
    const request = webRequest(req, abort.signal);
    const answer = (await isLegacyRequest(request, body))
      ? serveLegacy(request, authInfo, body, abort.signal)
      : modern.fetch(request, { authInfo, parsedBody: body });
    await writeWebResponse(await Promise.race([answer, gone]), res, abort.signal, sseDrainTimeoutMs);
  } catch (err) {
    if (err instanceof SlowReader)
      operation.services.logger.info({ request_id: operation.state.requestId }, 'MCP stream reader too slow: cut off');
    else if (!abort.signal.aborted) internalError(operation, res, err);
  } finally {
    // A stream cut short (a client that stopped reading) ends here too.
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}
