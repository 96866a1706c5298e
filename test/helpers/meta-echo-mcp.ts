// An MCP server over Streamable HTTP (the MCP SDK's own transport, stateless) that records the
// `params._meta` of every tools/call it receives, and answers with it: a first-party server's view of
// what the platform sends it (SPEC §5.7 delegation tokens).
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { freePort } from '../../temporal-dev/engines.js';

export interface MetaEchoMcp {
  url: string;
  /** The `_meta` of each tools/call, in order ({} when the request had none). */
  received: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startMetaEchoMcp(): Promise<MetaEchoMcp> {
  const port = await freePort();
  const received: Record<string, unknown>[] = [];
  const http = createServer(async (req, res) => {
    const mcp = new McpServer({ name: 'meta-echo', version: '1.0.0' });
    mcp.registerTool('echo_meta', { description: 'Answers with the _meta its call carried.' }, async (extra) => {
      const meta = { ...(extra._meta ?? {}) } as Record<string, unknown>;
      delete meta.progressToken;
      received.push(meta);
      return { content: [{ type: 'text', text: JSON.stringify(meta) }], structuredContent: { meta } };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    received,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}
