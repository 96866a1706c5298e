import { z } from 'zod';
import type { Logger } from '../../kernel/logging/logger.js';
import { allowListMatcher } from '../../net/addresses.js';
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
 * only, in every mode (MCP_OUTBOUND_ALLOW does not apply; only OAUTH_METADATA_DOCUMENT_ALLOW, empty
 * unless an operator names ranges, lets other addresses through), no redirects (an open redirect on a
 * trusted host must not vouch for another document), 64 KiB, 5 s. Every failure, whatever it was
 * (refused address, closed port, timeout, status, bad document), gives the same answer, so the sign-in
 * page tells nobody what is listening where; what went wrong is logged. Plain http only to an IP
 * address in that allow list.
 */
export class MetadataDocumentClients {
  private readonly cache = new Map<string, { client: OAuthClient; until: number }>();
  private readonly outbound: Outbound;
  /** Whether an IP address is in OAUTH_METADATA_DOCUMENT_ALLOW. */
  private readonly allowed: (address: string) => boolean;

  constructor(
    allow: string[],
    private readonly logger: Logger,
  ) {
    this.outbound = createOutbound({ allow, timeoutMs: 5000, maxResponseBytes: 64 * 1024 });
    this.allowed = allowListMatcher(allow);
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
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return url.protocol === 'http:' && this.allowed(host); // an IP address in the allow list (a name is in none)
  }

  async resolve(clientId: string): Promise<OAuthClient> {
    const hit = this.cache.get(clientId);
    if (hit && hit.until > Date.now()) return hit.client;
    // One answer for every failure: the page must not tell an open port from a closed one.
    const unusable = (reason: string) => {
      this.logger.warn({ client_id: clientId, reason }, 'client metadata document not used');
      return new OAuthError('invalid_client', 'The client metadata document at this client_id could not be fetched or is not valid.');
    };
    let fetched: { status: number; body: unknown };
    try {
      fetched = await this.outbound.fetchJson(clientId, { headers: { accept: 'application/json' }, redirect: 'manual' });
    } catch (err) {
      throw unusable((err as Error).message);
    }
    if (fetched.status !== 200) throw unusable(`answered ${fetched.status}, not 200`);
    const parsed = documentSchema.safeParse(fetched.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw unusable(`invalid: ${issue.path.join('.') || 'document'}: ${issue.message}`);
    }
    const doc = parsed.data;
    if (doc.client_id !== clientId) throw unusable(`names another client_id: ${doc.client_id.slice(0, 200)}`);
    for (const uri of doc.redirect_uris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw unusable(`redirect URI ${uri.slice(0, 200)} ${problem}`);
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
