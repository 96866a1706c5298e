import type { IncomingHttpHeaders } from 'node:http';
import {
  classifyInboundRequest,
  isJsonContentType,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
} from '@modelcontextprotocol/server';
import { serverInfo, toolTable, type PublishedTool } from './tool-table.js';
import { declaresTasks } from './tasks/protocol.js';
import { progressTokenOf } from './tasks/progress.js';
import { makesTasks } from './tasks/handlers.js';

// A `tools/call` answered without the SDK's per-request server, transport and web Request/Response:
// the common case of MCP traffic, at a fraction of the cost (docs/decisions.md: MCP `tools/call`
// answered directly). Only a request the SDK would serve, and answer with one JSON body, is taken
// here, and it is answered as the SDK answers it: test/mcp/direct-tool-call*.test.ts compare the two
// (equal once parsed; only the key order may differ) in both protocol eras. Anything else
// (initialize, tools/list, resources, a batch, a notification, arguments the tool's schema refuses,
// an unknown tool, a header the SDK would refuse) goes to the SDK untouched, which answers it and its
// errors as before. Nothing here outlives the request, and nothing is shared between requests but
// the process-wide tool table.

/** The only 2026-era revision the SDK (2.4) serves; a later one is the SDK's to answer. */
const modernRevision = '2026-07-28';

/** A tools/call this module answers: the tool, its validated arguments, and the era to answer in. */
export interface DirectToolCall {
  id: string | number;
  tool: PublishedTool;
  /** The arguments as the tool's schema parsed them (defaults applied), as the SDK hands them over. */
  input: unknown;
  era: 'legacy' | 'modern';
  /** The client declared the tasks extension (2026-07-28 only): a long tool may answer with a task. */
  tasks: boolean;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const only = (value: Record<string, unknown>, keys: ReadonlySet<string>) => Object.keys(value).every((k) => keys.has(k));
const messageKeys = new Set(['jsonrpc', 'id', 'method', 'params']);
const paramKeys = new Set(['name', 'arguments', '_meta']);

/** A header as one string (Node joins repeated ones as the web Headers do), or undefined. */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The call this module answers, or undefined for the SDK to answer. Decided on the request alone,
 * before anything runs: a request it declines has had no effect.
 */
export function directToolCall(headers: IncomingHttpHeaders, body: unknown): DirectToolCall | undefined {
  if (!isPlainObject(body) || !only(body, messageKeys) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const { id, params } = body;
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  if (!isPlainObject(params) || !only(params, paramKeys) || typeof params.name !== 'string') return undefined;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined;
  const tool = toolTable.get(params.name);
  if (!tool || !tool.direct) return undefined;
  if (!isJsonContentType(header(headers, 'content-type') ?? null)) return undefined;

  const protocolVersionHeader = header(headers, 'mcp-protocol-version');
  const mcpMethodHeader = header(headers, 'mcp-method');
  const mcpNameHeader = header(headers, 'mcp-name');
  // The SDK's own era decision (it validates a 2026 envelope, and cross-checks the headers with the body).
  const route = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader, mcpMethodHeader, mcpNameHeader, body });
  let era: DirectToolCall['era'];
  if (route.kind === 'legacy' && route.reason === 'no-claim') {
    // What the 2025 Streamable HTTP transport requires of a request it serves.
    const accept = header(headers, 'accept');
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
    if (protocolVersionHeader !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersionHeader)) return undefined;
    // A progress token or other request metadata: the SDK's to handle.
    if (params._meta !== undefined) return undefined;
    era = 'legacy';
  } else if (route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === modernRevision) {
    // The standard headers the 2026 entry requires on every request, naming what the body names.
    if (protocolVersionHeader?.trim() !== modernRevision) return undefined;
    if (mcpMethodHeader?.trim() !== 'tools/call' || mcpNameHeader?.trim() !== params.name) return undefined;
    era = 'modern';
  } else return undefined;
  // A task-capable call of a long tool is answered here only: the SDK's server validates a tool's
  // result against its output schema, which a task handle is not.
  const tasks = era === 'modern' && declaresTasks(params._meta) && makesTasks(tool.def);
  // A long tool's progress token without a task: the SDK's server sends the notifications (tasks/progress.ts) on an SSE answer.
  if (!tasks && makesTasks(tool.def) && progressTokenOf(params._meta) !== undefined) return undefined;

  const input = tool.def.input.safeParse(params.arguments ?? {});
  // Arguments the schema refuses: the SDK words that error, nothing has run yet.
  if (!input.success) return undefined;
  return { id: id as string | number, tool, input: input.data, era, tasks };
}

/** A Standard Schema issue as the SDK words it in a tool error. */
function issueText(issue: { message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }): string {
  if (!issue.path?.length) return issue.message;
  return `${issue.path.map((p) => String(typeof p === 'object' ? p.key : p)).join('.')}: ${issue.message}`;
}

/**
 * The SDK's own check of a result against the tool's output schema (it guards against our own bugs):
 * a result that breaks it becomes a tool error, worded as the SDK words it.
 */
async function checkedOutput(tool: PublishedTool, result: CallToolResult): Promise<CallToolResult> {
  if (!tool.output || result.isError || result.resultType === 'task') return result;
  const name = tool.def.name;
  let problem: string | undefined;
  if (result.structuredContent === undefined)
    problem = `Output validation error: Tool ${name} has an output schema but no structured content was provided`;
  else {
    const checked = await tool.output['~standard'].validate(result.structuredContent);
    if (checked.issues?.length)
      problem = `Output validation error: Invalid structured content for tool ${name}: ${checked.issues.map(issueText).join(', ')}`;
  }
  return problem === undefined ? result : { content: [{ type: 'text', text: problem }], isError: true };
}

/** The result as the era's wire codec writes it (2025: a non-object value is wrapped; 2026: result type and server identity). */
function encoded(era: DirectToolCall['era'], result: CallToolResult): Record<string, unknown> {
  const sc = result.structuredContent as unknown;
  const nonObject = sc !== undefined && !isPlainObject(sc);
  let out: Record<string, unknown> = result;
  if (nonObject && !result.content?.some((c) => c.type === 'text'))
    out = { ...out, content: [...(result.content ?? []), { type: 'text', text: JSON.stringify(sc) }] };
  if (out.content === undefined) out = { ...out, content: [] };
  if (era === 'legacy') return nonObject ? { ...out, structuredContent: { result: sc } } : out;
  if (out.resultType === 'task') {
    // A CreateTaskResult is a Task, not a CallToolResult: no content.
    const { content: _content, ...task } = out;
    out = task;
  }
  if (out.resultType === undefined) out = { ...out, resultType: 'complete' };
  const meta = out._meta;
  if (meta === undefined) return { ...out, _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
  if (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return out;
  return { ...out, _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } };
}

/**
 * Answers the call with what `run` returns for it, as the JSON-RPC response body the SDK would send.
 * `run` is the same tool handler the SDK's server calls (scope check, the tool, metrics, audit); a
 * handler that throws becomes a tool error worded with its message, as the SDK makes it.
 */
export async function answerDirect(call: DirectToolCall, run: (call: DirectToolCall) => Promise<CallToolResult>): Promise<string> {
  let result: CallToolResult;
  try {
    result = await checkedOutput(call.tool, await run(call));
  } catch (err) {
    result = { content: [{ type: 'text', text: err instanceof Error ? err.message : String(err) }], isError: true };
  }
  return JSON.stringify({ result: encoded(call.era, result), jsonrpc: '2.0', id: call.id });
}
