import {
  Client,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type ClientOptions,
  type PriorDiscovery,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Outbound } from '../net/outbound.js';
import { z } from 'zod';
import type { McpServerContent } from '../artifacts/content-types/mcp-server.js';
import type { SandboxedCommand } from '../stdio-servers/index.js';
import { platformInfo } from '../kernel/platform-info.js';
import { identifies } from '../connections/discovery.js';

/** What the activity resolved for one server: its credentials, never stored or logged. */
export interface ResolvedCredentials {
  env: Record<string, string>;
  headers: Record<string, string>;
  /** Every secret value, so results and errors can be scrubbed of them. */
  secrets: string[];
  /** The protected resources (RFC 8707) the headers are for: the endpoint must be one they identify. */
  audience?: string[];
}

/** The guarded outbound HTTP client (src/net/outbound.ts), as much of it as connecting needs. */
export type OutboundHttp = Pick<Outbound, 'fetch' | 'fetchJson'>;

/** §2.9 discovery document. */
export const discoveryDocument = z.object({
  name: z.string().min(1),
  version: z.string().min(1),
  endpoints: z.object({ streamable_http: z.string().min(1) }),
  tools: z.array(z.string()).optional(),
  icon: z.string().optional(),
});

export class DiscoveryError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** A live client and what its session learnt beyond the MCP handshake. */
export interface McpSession {
  client: Client;
  /** The protocol revision the session negotiated (`2026-07-28`, or a 2025 revision after the fallback). */
  protocolVersion: string;
  /** How the session was reached: stdio, Streamable HTTP, or the older HTTP+SSE transport. */
  transport: 'stdio' | 'streamable_http' | 'sse';
  /** Whether the revision was asked for now (`probed`) or taken from this worker's earlier verdict (`cached`). */
  negotiation: 'probed' | 'cached';
  /** The server's icon from its discovery document, if any. */
  discoveryIcon?: string;
  /** The tail of a stdio server's stderr, for error messages. */
  stderrTail(): string;
  close(): Promise<void>;
}

async function discover(
  wellKnown: string,
  outbound: OutboundHttp,
  sendsCredentials: boolean,
  audience: readonly string[] = [],
): Promise<{ endpoint: URL; icon?: string }> {
  const { status, body } = await outbound.fetchJson(wellKnown);
  if (status >= 400) throw new DiscoveryError(`The discovery document at ${wellKnown} answered HTTP ${status}.`, status);
  const parsed = discoveryDocument.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DiscoveryError(
      `The discovery document at ${wellKnown} is not valid (§2.9): ${issue.path.join('.') || 'document'} ${issue.message}.`,
    );
  }
  const endpoint = new URL(parsed.data.endpoints.streamable_http, wellKnown);
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:')
    throw new DiscoveryError(`endpoints.streamable_http resolves to ${endpoint.protocol} URL; only http and https are allowed.`);
  // The credential was registered for the discovery document's server: a document may not send it elsewhere.
  if (sendsCredentials && endpoint.origin !== new URL(wellKnown).origin)
    throw new DiscoveryError(
      `endpoints.streamable_http points to ${endpoint.origin}, another origin than ${new URL(wellKnown).origin}; credentials are only sent to the server that was registered (register the endpoint with "url" instead).`,
    );
  // A token issued for a resource goes only to an endpoint it identifies (path included: servers on one gateway host).
  const outside = audience.find((resource) => !identifies(resource, endpoint));
  if (outside)
    throw new DiscoveryError(
      `endpoints.streamable_http points to ${endpoint.href}, which the resource ${outside} the token was issued for does not identify; no token is sent there.`,
    );
  return { endpoint, ...(parsed.data.icon ? { icon: parsed.data.icon } : {}) };
}

const clientInfo = { name: `${platformInfo.name}-mcp-client`, version: platformInfo.version };

/** Opening a session (probe, handshake) has its own deadline, as every call does. */
export const connectTimeoutMs = 60_000;
/**
 * How long a stdio server may take to answer `server/discover` (started afresh for the probe: npx or
 * uvx and the sandbox take a second or two). Silence on stdio is read as a server of the 2025
 * revisions, which the session then speaks; over HTTP silence is an outage and the connect fails.
 */
export const stdioProbeTimeoutMs = 20_000;

/**
 * `auto`: the client asks `server/discover` first and speaks 2026-07-28 to a server that offers it;
 * any other answer (an error, -32601, a 4xx, a stdio server that exits) falls back to the 2025
 * `initialize` handshake. On stdio the SDK probes on a short-lived second process, so a server that
 * exits on an unknown request before `initialize` still gets its one clean start.
 */
const negotiation = (probeTimeoutMs: number): ClientOptions['versionNegotiation'] => ({
  mode: 'auto',
  probe: { timeoutMs: probeTimeoutMs },
});

/**
 * The era verdicts of stdio servers, by session key (command line, env and credentials), kept for an
 * hour: probing a stdio server starts it twice, and a verdict saves the second start for the sessions
 * opened after the first. A stale `legacy` verdict only keeps an upgraded server on 2025 (it still
 * answers `initialize`) until the hour is out; a stale `modern` one fails its first call, which drops
 * the verdict (forgetVerdict). HTTP servers are probed in place, one extra POST: never cached.
 */
const stdioVerdicts = new Map<string, { prior: PriorDiscovery; at: number }>();
export const verdictTtlMs = 60 * 60_000;

function cachedVerdict(key: string): PriorDiscovery | undefined {
  const held = stdioVerdicts.get(key);
  if (held && Date.now() - held.at < verdictTtlMs) return held.prior;
  stdioVerdicts.delete(key);
  return undefined;
}

function keepVerdict(key: string, client: Client): void {
  const discover = client.getDiscoverResult();
  const era = client.getProtocolEra();
  const prior: PriorDiscovery | undefined =
    era === 'modern' && discover ? { kind: 'modern', discover } : era === 'legacy' ? { kind: 'legacy' } : undefined;
  if (prior) stdioVerdicts.set(key, { prior, at: Date.now() });
  for (const [k, v] of stdioVerdicts) if (Date.now() - v.at >= verdictTtlMs) stdioVerdicts.delete(k);
}

/** A session that failed drops its server's verdict: the next one probes again. */
export const forgetVerdict = (key: string) => void stdioVerdicts.delete(key);

/** A Streamable HTTP session, falling back to the older HTTP+SSE transport when the server refuses the POST. */
async function connectHttp(
  client: (options: Pick<ClientOptions, 'versionNegotiation'>) => Client,
  endpoint: URL,
  headers: Record<string, string>,
  outbound: OutboundHttp,
): Promise<{ client: Client; transport: 'streamable_http' | 'sse' }> {
  const init = { headers };
  const streamable = client({ versionNegotiation: negotiation(connectTimeoutMs) });
  try {
    await streamable.connect(new StreamableHTTPClientTransport(endpoint, { fetch: outbound.fetch, requestInit: init }), {
      timeout: connectTimeoutMs,
    });
    return { client: streamable, transport: 'streamable_http' };
  } catch (err) {
    await streamable.close().catch(() => {});
    if (!(err instanceof SdkHttpError) || (err.status !== 404 && err.status !== 405)) throw err;
    // HTTP+SSE predates 2026-07-28: the plain 2025 handshake, no probe.
    const legacy = client({});
    await legacy
      .connect(new SSEClientTransport(endpoint, { fetch: outbound.fetch, requestInit: init }), { timeout: connectTimeoutMs })
      .catch(() => {
        throw err; // the server's own answer to Streamable HTTP says more than the fallback's
      });
    return { client: legacy, transport: 'sse' };
  }
}

/**
 * Opens a session with an external server: a stdio server is the sandboxed command its catalog entry
 * gives (src/stdio-servers), with only the sandbox's environment; HTTP servers are reached through
 * the guarded outbound client only.
 */
export async function openSession(
  content: McpServerContent,
  creds: ResolvedCredentials,
  {
    outbound,
    sandboxed,
    verdictKey,
  }: {
    outbound: OutboundHttp;
    sandboxed: SandboxedCommand | undefined;
    /** Where a stdio server's era verdict is kept. */ verdictKey?: string;
  },
  onToolsChanged: () => void,
): Promise<McpSession> {
  const newClient = (options: Pick<ClientOptions, 'versionNegotiation'>) =>
    new Client(clientInfo, {
      capabilities: {},
      listChanged: { tools: { autoRefresh: false, onChanged: () => onToolsChanged() } },
      ...options,
    });
  const { transport } = content;
  if (transport.type === 'stdio') {
    if (!sandboxed) throw new Error('a stdio server is only started sandboxed, from its catalog entry');
    let tail = '';
    // The SDK adds HOME, PATH, USER and the like from the worker's environment; the sandbox's own values replace every one of them.
    const stdio = new StdioClientTransport({ command: sandboxed.command, args: sandboxed.args, env: sandboxed.env, stderr: 'pipe' });
    stdio.stderr?.on('data', (chunk: Buffer) => void (tail = (tail + chunk.toString('utf8')).slice(-2000)));
    const client = newClient({ versionNegotiation: negotiation(stdioProbeTimeoutMs) });
    const prior = verdictKey ? cachedVerdict(verdictKey) : undefined;
    try {
      await client.connect(stdio, { timeout: connectTimeoutMs, ...(prior ? { prior } : {}) });
    } catch (err) {
      if (verdictKey) forgetVerdict(verdictKey);
      throw err;
    }
    if (verdictKey && !prior) keepVerdict(verdictKey, client);
    return {
      client,
      ...negotiated(client),
      transport: 'stdio',
      negotiation: prior ? 'cached' : 'probed',
      stderrTail: () => tail,
      close: () => client.close(),
    };
  }
  if (transport.type !== 'http') throw new Error('a server on a host is called through its relay, never opened here');
  const { endpoint, icon } = transport.url
    ? { endpoint: new URL(transport.url), icon: undefined }
    : await discover(transport.well_known!, outbound, Object.keys(creds.headers).length > 0, creds.audience);
  const { client, transport: reached } = await connectHttp(newClient, endpoint, creds.headers, outbound);
  return {
    client,
    ...negotiated(client),
    transport: reached,
    negotiation: 'probed',
    ...(icon ? { discoveryIcon: icon } : {}),
    stderrTail: () => '',
    close: () => client.close(),
  };
}

/** What the connect settled on: the SDK knows it once `connect()` resolved, on either era. */
function negotiated(client: Client): { protocolVersion: string } {
  return { protocolVersion: client.getNegotiatedProtocolVersion() ?? 'unknown' };
}
