// The reference client for an MCP server (or any service) that calls the platform with a server
// credential: client_credentials exchange, a cached token refreshed 60 s before expiry, one retry on
// 401, X-On-Behalf-Of on request, and the REST endpoints servers use. Dependency-free: copy it freely.

export interface PlatformClientOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Ask for fewer scopes than the credential holds (space-separated). */
  scope?: string;
  /** Refresh this many seconds before expiry (SPEC §8: 60). */
  refreshBeforeSeconds?: number;
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

const bodyPreviewChars = 2000;

/** A platform answer of 400 or above: status and a truncated body, for a tool to report (SPEC §7.1). */
export class PlatformApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path} failed with HTTP ${status}: ${body}`);
  }

  /** The MCP tool result a server returns instead of crashing. */
  toToolResult(): { isError: true; content: { type: 'text'; text: string }[] } {
    return { isError: true, content: [{ type: 'text', text: `Platform API error: HTTP ${this.status}\n${this.body}` }] };
  }
}

interface CachedToken {
  value: string;
  expiresAt: number;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  onBehalfOf?: string;
}

export class PlatformClient {
  private cached: CachedToken | null = null;
  private pending: Promise<CachedToken> | null = null;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly baseUrl: string;

  constructor(private readonly options: PlatformClientOptions) {
    this.fetch = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
    this.baseUrl = options.baseUrl.replace(/\/$/, '');
  }

  /** A valid access token, exchanged at most once at a time, reused until 60 s before it expires. */
  async token(): Promise<string> {
    const margin = (this.options.refreshBeforeSeconds ?? 60) * 1000;
    if (this.cached && this.now() < this.cached.expiresAt - margin) return this.cached.value;
    this.pending ??= this.exchange().finally(() => (this.pending = null));
    this.cached = await this.pending;
    return this.cached.value;
  }

  /** Drops the cached token: the next call exchanges the credential again. */
  invalidate(): void {
    this.cached = null;
  }

  private async exchange(): Promise<CachedToken> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.options.clientId,
      client_secret: this.options.clientSecret,
    });
    if (this.options.scope) form.set('scope', this.options.scope);
    const res = await this.fetch(`${this.baseUrl}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const text = await res.text();
    if (!res.ok) throw new PlatformApiError(res.status, text.slice(0, bodyPreviewChars), 'POST', '/auth/token');
    const json = JSON.parse(text) as { access_token: string; expires_in: number };
    return { value: json.access_token, expiresAt: this.now() + json.expires_in * 1000 };
  }

  /** Calls the API; a 401 gets one fresh token and one retry. Errors throw PlatformApiError. */
  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const query = Object.entries(options.query ?? {}).filter(([, v]) => v !== undefined);
    const url = `${this.baseUrl}${path}${query.length ? `?${new URLSearchParams(query.map(([k, v]) => [k, String(v)]))}` : ''}`;
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { authorization: `Bearer ${await this.token()}` };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      if (options.onBehalfOf) headers['x-on-behalf-of'] = options.onBehalfOf;
      const res = await this.fetch(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
      if (res.status === 401 && attempt === 0) {
        await res.arrayBuffer();
        this.invalidate();
        continue;
      }
      const text = await res.text();
      if (!res.ok) throw new PlatformApiError(res.status, text.slice(0, bodyPreviewChars), method, path);
      return (text ? JSON.parse(text) : undefined) as T;
    }
  }

  /** The same client, acting for a person who has authorized this credential (X-On-Behalf-Of). */
  forPerson(personId: string): PlatformApi {
    return new PlatformApi(this, personId);
  }

  get api(): PlatformApi {
    return new PlatformApi(this);
  }
}

export interface ArtifactInput {
  title: string;
  content_type: string;
  content: string;
  collection_id?: string;
  context?: Record<string, unknown>;
}

/** The REST endpoints a server uses, typed loosely (the API's JSON). */
export class PlatformApi {
  constructor(
    private readonly client: PlatformClient,
    private readonly onBehalfOf?: string,
  ) {}

  private call<T>(method: string, path: string, options: Omit<RequestOptions, 'onBehalfOf'> = {}) {
    return this.client.request<T>(method, path, { ...options, onBehalfOf: this.onBehalfOf });
  }

  getArtifact(id: string) {
    return this.call<Record<string, unknown>>('GET', `/artifacts/${encodeURIComponent(id)}`);
  }
  listArtifacts(query: { collection_id?: string; content_type?: string; limit?: number; cursor?: string } = {}) {
    return this.call<{ items: Record<string, unknown>[]; next_cursor: string | null }>('GET', '/artifacts', { query });
  }
  createArtifact(input: ArtifactInput) {
    return this.call<Record<string, unknown>>('POST', '/artifacts', { body: input });
  }
  updateArtifact(id: string, patch: Partial<Omit<ArtifactInput, 'collection_id'>>) {
    return this.call<Record<string, unknown>>('PATCH', `/artifacts/${encodeURIComponent(id)}`, { body: patch });
  }
  listWorkspaces(query: { limit?: number; cursor?: string } = {}) {
    return this.call<{ items: Record<string, unknown>[]; next_cursor: string | null }>('GET', '/workspaces', { query });
  }
  getWorkspace(id: string) {
    return this.call<Record<string, unknown>>('GET', `/workspaces/${encodeURIComponent(id)}`);
  }
  listCollections(query: { limit?: number; cursor?: string } = {}) {
    return this.call<{ items: Record<string, unknown>[]; next_cursor: string | null }>('GET', '/collections', { query });
  }
  workspaceEvents(id: string, query: { limit?: number; cursor?: string } = {}) {
    return this.call<{ items: Record<string, unknown>[]; next_cursor: string | null }>(
      'GET',
      `/workspaces/${encodeURIComponent(id)}/events`,
      { query },
    );
  }
}
