import { z } from 'zod';
import type { Logger } from '../../kernel/logging/logger.js';
import { createOutbound, type Outbound } from '../../net/outbound.js';
import { redirectUriProblem, type OAuthClient } from './clients.js';
import { OAuthError } from './errors.js';

const documentSchema = z
  .object({
    client_id: z.string(),
    client_name: z.string().trim().min(1).max(200).optional(),
    client_uri: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    redirect_uris: z.array(z.string().max(2000)).min(1).max(10),
    grant_types: z.array(z.string()).optional(),
    token_endpoint_auth_method: z.literal('none', { error: 'must be none: a metadata document describes a public client' }).optional(),
    client_secret: z.undefined({ error: 'a metadata document must not carry a secret' }).optional(),
  })
  .loose();

const ttlMs = 5 * 60_000;
const maxCached = 500;

/**
 * Client ID Metadata Documents (MCP authorization, 2025-11-25): a client whose id is an https URL
 * with a path is described by the JSON document at that URL, kept for five minutes. Anyone can make
 * us fetch one, unauthenticated, so the fetch has an SSRF-guarded client of its own: public addresses
 * only (MCP_OUTBOUND_ALLOW does not apply; loopback in development, where the tests serve their
 * documents), no redirects (an open redirect on a trusted host must not vouch for another document),
 * 64 KiB, 5 s; what went wrong is logged, never shown. Plain http only on loopback in development.
 */
export class MetadataDocumentClients {
  private readonly cache = new Map<string, { client: OAuthClient; until: number }>();
  private readonly outbound: Outbound;

  constructor(
    private readonly development: boolean,
    private readonly logger: Logger,
  ) {
    const allow = development ? ['127.0.0.0/8', '::1/128'] : [];
    this.outbound = createOutbound({ allow, timeoutMs: 5000, maxResponseBytes: 64 * 1024 });
  }

  close(): Promise<void> {
    return this.outbound.close();
  }

  /** Whether a client id names a metadata document rather than a registered client. */
  isDocumentId(clientId: string): boolean {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      return false;
    }
    if (url.pathname === '/' || url.hash || url.username || url.password) return false;
    if (url.protocol === 'https:') return true;
    return this.development && url.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  }

  async resolve(clientId: string): Promise<OAuthClient> {
    const hit = this.cache.get(clientId);
    if (hit && hit.until > Date.now()) return hit.client;
    let fetched: { status: number; body: unknown };
    try {
      fetched = await this.outbound.fetchJson(clientId, { headers: { accept: 'application/json' }, redirect: 'manual' });
    } catch (err) {
      this.logger.warn({ client_id: clientId, err: (err as Error).message }, 'client metadata document not fetched');
      throw new OAuthError('invalid_client', 'The client metadata document at this client_id could not be fetched.');
    }
    if (fetched.status !== 200) {
      this.logger.warn({ client_id: clientId, status: fetched.status }, 'client metadata document not fetched');
      throw new OAuthError('invalid_client', `The client metadata document at this client_id answered ${fetched.status}, not 200.`);
    }
    const parsed = documentSchema.safeParse(fetched.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new OAuthError(
        'invalid_client',
        `The client metadata document is invalid: ${issue.path.join('.') || 'document'}: ${issue.message}`,
      );
    }
    const doc = parsed.data;
    if (doc.client_id !== clientId) throw new OAuthError('invalid_client', 'The client metadata document names another client_id.');
    for (const uri of doc.redirect_uris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new OAuthError('invalid_client', `The client metadata document's redirect URI ${uri} ${problem}.`);
    }
    const client: OAuthClient = {
      client_id: clientId,
      client_name: doc.client_name ?? new URL(clientId).host,
      redirect_uris: doc.redirect_uris,
      grant_types: doc.grant_types?.filter((g) => g === 'authorization_code' || g === 'refresh_token') ?? ['authorization_code'],
      token_endpoint_auth_method: 'none',
      secret_sha256: null,
      ...(doc.client_uri ? { client_uri: doc.client_uri } : {}),
      source: 'metadata_document',
    };
    if (this.cache.size >= maxCached) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(clientId, { client, until: Date.now() + ttlMs });
    return client;
  }
}
