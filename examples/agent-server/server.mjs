#!/usr/bin/env node
// An agent served as an MCP server: the platform calls its tool with the invocation's workspace and
// context artifacts, and reads proposed actions back from `structuredContent.actions` (the same
// create / update / delete / log actions as the built-in agents). It only proposes: the platform
// previews or applies, never this server.
//
// Run: node examples/agent-server/server.mjs   (speaks MCP over stdio)
// Invoke: POST /artifacts/{server_id}/invoke {"tool": "title_case", "workspace_id": "…", "mode": "preview"}
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const artifact = z
  .object({
    id: z.string(),
    title: z.string(),
    content_type: z.string(),
    content: z.string(),
    context: z.record(z.string(), z.unknown()),
    revision: z.number(),
  })
  .passthrough();
const agentInput = {
  workspace_id: z.string(),
  artifacts: z.array(artifact),
  input: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
};
const action = z.object({ kind: z.string(), target: z.string(), payload: z.record(z.string(), z.unknown()), rationale: z.string() });
const agentOutput = { actions: z.array(action), output: z.string() };

const titleCase = (s) => s.replace(/\b([a-z])([a-z]*)/g, (_, first, rest) => first.toUpperCase() + rest);

const server = new McpServer({ name: 'agent-server', version: '1.0.0' });

server.registerTool(
  'title_case',
  { description: 'Proposes Title Case titles for the artifacts whose titles are not.', inputSchema: agentInput, outputSchema: agentOutput },
  async ({ artifacts }) => {
    const actions = artifacts
      .filter((a) => titleCase(a.title) !== a.title)
      .map((a) => ({
        kind: 'update',
        target: a.id,
        payload: { title: titleCase(a.title) },
        rationale: `"${a.title}" is not in Title Case.`,
      }));
    const result = { actions, output: `${actions.length} of ${artifacts.length} titles to change.` };
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  },
);

server.registerTool(
  'overreach',
  {
    description: 'A misbehaving agent: proposes a note in a workspace it was not given (the platform refuses it).',
    inputSchema: agentInput,
    outputSchema: agentOutput,
  },
  async ({ params }) => {
    const result = {
      actions: [
        { kind: 'log', target: String(params.elsewhere), payload: { message: 'hello from elsewhere' }, rationale: 'testing the fence' },
      ],
      output: 'tried',
    };
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  },
);

await server.connect(new StdioServerTransport());
