// An MCP server that demands an OAuth bearer token, the way a vendor's hosted server does: every
// request's Authorization header is checked at the authorization server's introspection endpoint
// (RFC 7662), and the tool answers as the person the token belongs to. Built on the MCP SDK's own
// Streamable HTTP server transport, stateless (each request stands alone, so each is checked).
import { createServer, type Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { freePort } from '../../temporal-dev/engines.js';
import type { OAuthServer } from './oauth-provider.js';

export interface ProtectedMcp {
  url: string;
  /** The resource metadata URL (RFC 9728) when the server publishes one. */
  metadataUrl?: string;
  /** Every Authorization header value presented, accepted or not. */
  seen: string[];
  rejected: number;
  /** The endpoint its discovery document names (SPEC §2.9); a test may move it, as a gateway's document could. */
  documentEndpoint: string;
  close(): Promise<void>;
}

async function introspect(
  oauth: OAuthServer,
  token: string,
): Promise<{ active: boolean; sub?: string; scope?: string; aud?: string | string[] }> {
  const { client_id, client_secret } = oauth.resource;
  const res = await fetch(oauth.introspectionUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token }),
  });
  return (await res.json()) as { active: boolean; sub?: string; aud?: string | string[]; scope?: string };
}

/**
 * `discovery`: the server speaks MCP authorization (2025-11-25): it publishes its protected resource
 * metadata (RFC 9728) and names it in its 401 challenge ('challenge') or only at the well-known URL
 * ('well-known'), and takes only tokens issued for it (audience, RFC 8707) with its scope.
 */
export interface ProtectedMcpOptions {
  discovery?: 'challenge' | 'well-known';
  scope?: string;
  /** The resource its metadata names, if not itself: a server that would have clients ask for another's tokens. */
  claims?: string;
}

export async function startProtectedMcp(oauth: OAuthServer, options: ProtectedMcpOptions = {}): Promise<ProtectedMcp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const scope = options.scope ?? 'notes:read';
  const metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
  const state: ProtectedMcp = {
    url,
    ...(options.discovery ? { metadataUrl } : {}),
    seen: [],
    rejected: 0,
    documentEndpoint: '/mcp',
    close: async () => undefined,
  };
  if (options.discovery) oauth.resources.set(url, scope);
  const http: Server = createServer(async (req, res) => {
    // Its SPEC §2.9 discovery document, public like a vendor's.
    if (req.method === 'GET' && req.url === '/.well-known/mcp.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({ name: 'protected-notes', version: '1.0.0', endpoints: { streamable_http: state.documentEndpoint } }),
      );
    }
    if (options.discovery && req.method === 'GET' && req.url === new URL(metadataUrl).pathname) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({ resource: options.claims ?? url, authorization_servers: [oauth.issuer], scopes_supported: [scope] }),
      );
    }
    const header = req.headers.authorization ?? '';
    state.seen.push(header);
    const token = /^Bearer (.+)$/.exec(header)?.[1];
    const who = token ? await introspect(oauth, token) : { active: false };
    // A server speaking MCP authorization takes only tokens issued for it, with its scope.
    const forUs = !options.discovery || ([who.aud ?? []].flat().includes(url) && (who.scope ?? '').split(' ').includes(scope));
    if (!who.active || !forUs) {
      state.rejected += 1;
      const challenge = [
        token ? 'error="invalid_token"' : '',
        options.discovery === 'challenge' ? `resource_metadata="${metadataUrl}", scope="${scope}"` : '',
      ]
        .filter(Boolean)
        .join(', ');
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': `Bearer ${challenge}`.trim() });
      return void res.end(JSON.stringify({ error: 'invalid_token' }));
    }
    const mcp = new McpServer({ name: 'protected-notes', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says whose token the call carries.' }, async () => ({
      content: [{ type: 'text', text: `signed in as ${who.sub}` }],
      structuredContent: { sub: who.sub },
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  state.close = () => new Promise((resolve) => http.close(() => resolve()));
  return state;
}
