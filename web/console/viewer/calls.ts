// What a viewer's host asks of the platform, as the signed-in person: the viewer's HTML (a `ui://`
// resource of the type's server) and the tool calls it makes. Both are MCP runs; one that outlasts
// the request is followed at /invocations/{id} until it ends.
import type { CallToolResult } from '@modelcontextprotocol/client';
import { api } from '../api';

interface Run<T> {
  invocation_id: string;
  status: 'running' | 'completed';
  result?: T;
  contents?: T;
  poll: string;
}

export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
}

const pollMs = 500;
const deadlineMs = 120_000;

async function settle<T>(first: Run<T>, pick: (run: Run<T>) => T | undefined): Promise<T> {
  let run = first;
  const until = Date.now() + deadlineMs;
  while (run.status === 'running' && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    run = await api<Run<T>>(run.poll);
  }
  const value = pick(run);
  if (value === undefined) throw new Error(run.status === 'running' ? 'The server did not answer in time.' : 'The server gave no answer.');
  return value;
}

/**
 * The platform's own toolset as a server (src/operations/builtin-servers.ts, `platformToolsetId`): its
 * `ui://` resources (the artifact viewer, issue #35) are the platform's MCP server's, read at /mcp.
 */
export const platformToolsetId = '0ac9dc71-c604-5e47-a956-4d02200bda71';

/** resources/read on the platform's own MCP server, as the person (one stateless JSON-RPC request). */
async function platformResource(uri: string): Promise<ResourceContents[]> {
  const answer = await api<{ result?: { contents: ResourceContents[] }; error?: { message: string } }>('/mcp', {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } }),
  });
  if (!answer.result) throw new Error(answer.error?.message ?? `The platform sent no contents for ${uri}.`);
  return answer.result.contents;
}

/** A resource of server `serverId` as the person reads it: the platform's own at /mcp, a registered server's as an MCP run. */
export async function readResource(serverId: string, uri: string): Promise<ResourceContents[]> {
  if (serverId === platformToolsetId) return platformResource(uri);
  const first = await api<Run<ResourceContents[]>>(`/artifacts/${encodeURIComponent(serverId)}/op/resources_read`, {
    method: 'POST',
    body: JSON.stringify({ uri }),
  });
  return settle(first, (run) => run.contents ?? (run.result as unknown as { contents?: ResourceContents[] })?.contents);
}

/** The viewer page: the text of the resource `uri` of server `serverId`. */
export async function viewerHtml(serverId: string, uri: string): Promise<string> {
  const contents = await readResource(serverId, uri);
  const page = contents.find((c) => c.uri === uri) ?? contents[0];
  if (typeof page?.text !== 'string') throw new Error(`The server sent no HTML for ${uri}.`);
  return page.text;
}

/** A viewer's tools/call, made by the platform as the person (and, toward a first-party server, with a delegation token). */
export async function callTool(serverId: string, name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
  const first = await api<Run<CallToolResult>>(`/artifacts/${encodeURIComponent(serverId)}/invoke`, {
    method: 'POST',
    body: JSON.stringify({ name, arguments: args ?? {} }),
  });
  return settle(first, (run) => run.result);
}
