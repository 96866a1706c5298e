import { isIP } from 'node:net';
import { z } from 'zod';
import type { Outbound } from '../net/outbound.js';

/**
 * MCP authorization discovery, the client side (MCP 2025-11-25 "Authorization"): a protected MCP
 * server's 401 challenge (RFC 6750 §3, RFC 9728 §5.1), its protected resource metadata (RFC 9728), its
 * authorization server's metadata (RFC 8414, OpenID Connect Discovery), and a client there (dynamic
 * client registration, RFC 7591). Every URL here comes from a remote server, so every fetch goes
 * through the guarded outbound client (SSRF checks, a deadline, a size limit), and every URL must be
 * https, except loopback in development.
 */

/** Discovery could not finish: `code` is stable (the API's problem type), the message says what the server did. */
export class DiscoveryFailed extends Error {
  override name = 'DiscoveryFailed';
  constructor(
    readonly code: 'not-protected' | 'metadata-unusable' | 'no-client-registration' | 'registration-refused' | 'unreachable',
    message: string,
  ) {
    super(message);
  }
}

export interface DiscoveryDeps {
  outbound: Outbound;
  /** Development: plain http is accepted for loopback hosts (never otherwise). */
  isDev: boolean;
}

const loopbackNames = new Set(['localhost', '127.0.0.1', '::1']);
function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return loopbackNames.has(h) || (isIP(h) === 4 && h.startsWith('127.'));
}

/** A URL named by remote metadata, parsed, and refused unless https (or loopback http in development). */
export function secureUrl(deps: Pick<DiscoveryDeps, 'isDev'>, value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DiscoveryFailed('metadata-unusable', `${what} is not a URL (${value.slice(0, 200)}).`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && deps.isDev && isLoopback(url.hostname)) return url;
  throw new DiscoveryFailed('metadata-unusable', `${what} (${url.origin}) is not https; the platform sends credentials only over https.`);
}

async function getJson(deps: DiscoveryDeps, url: URL, what: string): Promise<{ status: number; body: unknown }> {
  try {
    // No redirects: metadata is read where it was named (a redirect could point anywhere).
    return await deps.outbound.fetchJson(url, { redirect: 'manual' });
  } catch (err) {
    throw new DiscoveryFailed('unreachable', `${what} at ${url.href} could not be read: ${(err as Error).message}.`);
  }
}

/** The auth-params of a `Bearer` challenge in WWW-Authenticate (RFC 7235 §4.1), lower-cased names. */
export function bearerChallenge(header: string | null): Record<string, string> | null {
  if (!header) return null;
  const at = header.search(/(^|,)\s*Bearer(\s|$)/i);
  if (at < 0) return null;
  const rest = header.slice(at).replace(/^,?\s*Bearer/i, '');
  const params: Record<string, string> = {};
  const re = /\s*([A-Za-z0-9_!#$%&'*+.^`|~-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))\s*(,|$)/gy;
  for (let m = re.exec(rest); m; m = re.exec(rest)) {
    params[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
    // The next word without "=" starts another challenge.
    if (!/^\s*[A-Za-z0-9_!#$%&'*+.^`|~-]+\s*=/.test(rest.slice(re.lastIndex))) break;
  }
  return params;
}

export interface Challenge {
  resourceMetadata?: string;
  scope?: string[];
}

/**
 * Asks the MCP endpoint to initialize without a token (MCP Streamable HTTP) and reads its answer: a
 * 401 with a Bearer challenge is a protected server; anything else is not (or not by MCP authorization).
 */
export async function probe(deps: DiscoveryDeps, endpoint: URL): Promise<Challenge | null> {
  let res: Response;
  try {
    res = await deps.outbound.fetch(endpoint, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'platform', version: '1.0.0' } },
      }),
    });
  } catch (err) {
    throw new DiscoveryFailed('unreachable', `The MCP server at ${endpoint.href} could not be reached: ${(err as Error).message}.`);
  }
  await res.body?.cancel().catch(() => undefined);
  const session = res.headers.get('mcp-session-id');
  // An open server made a session for the probe: it is ended at once (MCP Streamable HTTP session termination).
  if (res.ok && session)
    await deps.outbound
      .fetch(endpoint, { method: 'DELETE', redirect: 'manual', headers: { 'mcp-session-id': session } })
      .then((r) => r.body?.cancel())
      .catch(() => undefined);
  if (res.status !== 401) return null;
  const params = bearerChallenge(res.headers.get('www-authenticate'));
  return {
    ...(params?.resource_metadata ? { resourceMetadata: params.resource_metadata } : {}),
    ...(params?.scope ? { scope: params.scope.split(' ').filter(Boolean) } : {}),
  };
}

const resourceMetadata = z.object({
  resource: z.string().min(1),
  authorization_servers: z.array(z.string().min(1)).min(1, 'names no authorization server'),
  scopes_supported: z.array(z.string().min(1)).max(100).optional(),
});
export type ResourceMetadata = z.infer<typeof resourceMetadata>;

/** RFC 9728 §3.1: the well-known URL for a resource, path-inserted, then at the origin (MCP's fallback order). */
function wellKnownResourceUrls(endpoint: URL): URL[] {
  const path = endpoint.pathname.replace(/\/$/, '');
  const urls = [new URL(`/.well-known/oauth-protected-resource${path}`, endpoint.origin)];
  if (path) urls.push(new URL('/.well-known/oauth-protected-resource', endpoint.origin));
  return urls;
}

/** Whether `resource` identifies the server at `endpoint`: same origin, and a path prefix of it. */
export function identifies(resource: string, endpoint: URL): boolean {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (url.origin !== endpoint.origin || url.search || url.hash) return false;
  const base = url.pathname.replace(/\/$/, '');
  return endpoint.pathname === base || endpoint.pathname.startsWith(`${base}/`) || base === '';
}

/**
 * The protected resource metadata: where the challenge says, else at the well-known URLs. Its
 * `resource` must identify the server that was asked (RFC 9728 sections 3.3 and 7.3), so a server cannot have
 * the platform ask for tokens meant for another.
 */
export async function protectedResource(deps: DiscoveryDeps, endpoint: URL, challenge: Challenge): Promise<ResourceMetadata> {
  const candidates = challenge.resourceMetadata
    ? [secureUrl(deps, challenge.resourceMetadata, 'The resource_metadata URL of the challenge')]
    : wellKnownResourceUrls(endpoint);
  for (const url of candidates) {
    const { status, body } = await getJson(deps, url, 'The protected resource metadata');
    if (status !== 200) continue;
    const parsed = resourceMetadata.safeParse(body);
    if (!parsed.success)
      throw new DiscoveryFailed(
        'metadata-unusable',
        `The protected resource metadata at ${url.href} is not valid: ${parsed.error.issues[0]!.path.join('.')} ${parsed.error.issues[0]!.message}.`,
      );
    if (!identifies(parsed.data.resource, endpoint))
      throw new DiscoveryFailed(
        'metadata-unusable',
        `The protected resource metadata names the resource ${parsed.data.resource.slice(0, 200)}, which is not the server registered (${endpoint.href}).`,
      );
    return parsed.data;
  }
  throw new DiscoveryFailed(
    'not-protected',
    `The MCP server at ${endpoint.href} answered 401 but publishes no protected resource metadata (RFC 9728); create an authorizer by hand.`,
  );
}

const serverMetadata = z.object({
  issuer: z.string().min(1),
  authorization_endpoint: z.string().min(1),
  token_endpoint: z.string().min(1),
  registration_endpoint: z.string().min(1).optional(),
  scopes_supported: z.array(z.string()).optional(),
  grant_types_supported: z.array(z.string()).optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  client_id_metadata_document_supported: z.boolean().optional(),
});
export type ServerMetadata = z.infer<typeof serverMetadata>;

/** RFC 8414 §3.1 and OpenID Connect Discovery, in the order MCP 2025-11-25 gives for issuers with and without a path. */
function metadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/$/, '');
  const at = (p: string) => new URL(p, issuer.origin);
  return path
    ? [
        at(`/.well-known/oauth-authorization-server${path}`),
        at(`/.well-known/openid-configuration${path}`),
        at(`${path}/.well-known/openid-configuration`),
      ]
    : [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
}

/**
 * The authorization server's metadata. Its `issuer` must be the one the resource named (RFC 8414
 * section 3.3, against mix-up); its endpoints must be https; it must offer PKCE with S256 (MCP: a client
 * refuses an authorization server without it).
 */
export async function authorizationServer(deps: DiscoveryDeps, issuerValue: string): Promise<ServerMetadata> {
  const issuer = secureUrl(deps, issuerValue, 'The authorization server');
  for (const url of metadataUrls(issuer)) {
    const { status, body } = await getJson(deps, url, 'The authorization server metadata');
    if (status !== 200) continue;
    const parsed = serverMetadata.safeParse(body);
    if (!parsed.success)
      throw new DiscoveryFailed(
        'metadata-unusable',
        `The authorization server metadata at ${url.href} is not valid: ${parsed.error.issues[0]!.path.join('.')} ${parsed.error.issues[0]!.message}.`,
      );
    const meta = parsed.data;
    if (meta.issuer.replace(/\/$/, '') !== issuerValue.replace(/\/$/, ''))
      throw new DiscoveryFailed(
        'metadata-unusable',
        `The authorization server metadata at ${url.href} names another issuer (${meta.issuer.slice(0, 200)}).`,
      );
    secureUrl(deps, meta.authorization_endpoint, 'The authorization endpoint');
    secureUrl(deps, meta.token_endpoint, 'The token endpoint');
    if (meta.registration_endpoint) secureUrl(deps, meta.registration_endpoint, 'The registration endpoint');
    if (!meta.code_challenge_methods_supported?.includes('S256'))
      throw new DiscoveryFailed(
        'metadata-unusable',
        `The authorization server ${issuerValue} does not offer PKCE with S256, which MCP authorization requires.`,
      );
    return meta;
  }
  throw new DiscoveryFailed(
    'metadata-unusable',
    `The authorization server ${issuerValue} publishes no metadata (RFC 8414 or OpenID Connect Discovery).`,
  );
}

/**
 * The scopes to ask for: the challenge's, else what the resource supports (MCP's scope selection),
 * plus `offline_access` where the authorization server offers it, since a connection lives on by refresh.
 */
export function scopesFor(challenge: Challenge, resource: ResourceMetadata, server: ServerMetadata): string[] {
  const scopes = [...(challenge.scope ?? resource.scopes_supported ?? [])];
  const refreshes = !server.grant_types_supported || server.grant_types_supported.includes('refresh_token');
  if (refreshes && server.scopes_supported?.includes('offline_access') && !scopes.includes('offline_access')) scopes.push('offline_access');
  return scopes;
}

const registered = z.object({
  client_id: z.string().min(1).max(2000),
  client_secret: z.string().min(1).max(4096).optional(),
});

/**
 * Dynamic client registration (RFC 7591): the platform as a confidential client with the secret
 * sent by HTTP Basic when the server offers that, else as a public client (PKCE alone).
 */
export async function registerClient(
  deps: DiscoveryDeps,
  server: ServerMetadata,
  client: { name: string; redirectUri: string; scopes: string[] },
): Promise<{ client_id: string; client_secret?: string }> {
  if (!server.registration_endpoint)
    throw new DiscoveryFailed(
      'no-client-registration',
      `The authorization server ${server.issuer} offers neither client ID metadata documents the platform can use nor dynamic client registration; register the platform there by hand and create an authorizer.`,
    );
  const methods = server.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const method = methods.includes('client_secret_basic') ? 'client_secret_basic' : 'none';
  const body = {
    client_name: client.name,
    redirect_uris: [client.redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: method,
    ...(client.scopes.length ? { scope: client.scopes.join(' ') } : {}),
  };
  const url = secureUrl(deps, server.registration_endpoint, 'The registration endpoint');
  let answer: { status: number; body: unknown };
  try {
    answer = await deps.outbound.fetchJson(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (err) {
    throw new DiscoveryFailed('unreachable', `The registration endpoint ${url.href} could not be reached: ${(err as Error).message}.`);
  }
  const parsed = registered.safeParse(answer.body);
  if (answer.status !== 201 && answer.status !== 200) {
    const said = (answer.body as { error?: unknown; error_description?: unknown } | null) ?? {};
    const detail = [said.error, said.error_description]
      .filter((x) => typeof x === 'string')
      .join(': ')
      .slice(0, 300);
    throw new DiscoveryFailed(
      'registration-refused',
      `The authorization server refused to register the platform (${answer.status}${detail ? `, ${detail}` : ''}).`,
    );
  }
  if (!parsed.success) throw new DiscoveryFailed('registration-refused', 'The registration endpoint answered without a client_id.');
  if (method === 'client_secret_basic' && !parsed.data.client_secret) return { client_id: parsed.data.client_id }; // registered as public after all: PKCE alone
  return parsed.data;
}
