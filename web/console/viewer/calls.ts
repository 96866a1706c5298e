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

interface ResourceContents {
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

/** The viewer page: the text of the resource `uri` of server `serverId`. */
export async function viewerHtml(serverId: string, uri: string): Promise<string> {
  const first = await api<Run<ResourceContents[]>>(`/artifacts/${encodeURIComponent(serverId)}/op/resources_read`, {
    method: 'POST',
    body: JSON.stringify({ uri }),
  });
  const contents = await settle(first, (run) => run.contents ?? (run.result as unknown as { contents?: ResourceContents[] })?.contents);
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
