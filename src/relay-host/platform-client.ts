import { z } from 'zod';
import {
  helloResponse,
  pollResponse,
  type HelloRequest,
  type HelloResponse,
  type PollRequest,
  type PollResponse,
  type ResultRequest,
} from '../relay-protocol/wire.js';

/** A failure worth retrying after a pause: the network, a deadline, or a 5xx. */
export class TransientError extends Error {}

/** The platform answered with a status the relay cannot get past by retrying (a 4xx other than 401). */
export class PlatformError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
  /** Another relay process of this host said hello after this one: two relays for one host are a mistake. */
  get sessionReplaced() {
    return this.status === 409 && this.type.endsWith('relay-session-replaced');
  }
  /** The platform does not know this session (it forgot it, or never got the hello): say hello again. */
  get sessionUnknown() {
    return this.type.endsWith('relay-session-unknown');
  }
}

const tokenResponse = z.looseObject({ access_token: z.string().min(1), expires_in: z.number().positive().optional() });
const problem = z.looseObject({ type: z.string().optional(), title: z.string().optional(), detail: z.string().optional() });

/** Refresh a token this long before it expires. */
const refreshMarginMs = 60_000;
const requestTimeoutMs = 30_000;

/**
 * The relay's only connection: outbound HTTPS requests to the platform, each with a deadline, each
 * with a bearer token of `client_credentials` (refreshed before it expires and once on a 401). The
 * secret is the server credential's; the relay never sees a password.
 */
export class PlatformClient {
  private token: { value: string; expiresAt: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(private readonly o: { url: string; clientId: string; secret: string }) {}

  private endpoint(path: string) {
    return new URL(path.replace(/^\//, ''), this.o.url.endsWith('/') ? this.o.url : `${this.o.url}/`);
  }

  private async fetchToken(): Promise<string> {
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.o.clientId, client_secret: this.o.secret });
    const res = await this.send(this.endpoint('/auth/token'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    const json = await res.json().catch(() => null);
    // A rate limit (shared behind one NAT) or a timeout passes: retried like an outage, never fatal.
    if (res.status >= 500 || res.status === 429 || res.status === 408) throw new TransientError(`signing in answered HTTP ${res.status}`);
    if (!res.ok) {
      const p = problem.safeParse(json);
      const oauth = json as { error?: string; error_description?: string } | null;
      const why = p.data?.detail ?? p.data?.title ?? oauth?.error_description ?? oauth?.error ?? 'no reason given';
      throw new PlatformError(
        res.status,
        p.data?.type ?? '',
        `signing in failed (HTTP ${res.status}): ${why}${res.status === 401 || res.status === 400 ? ' (check --client-id and the secret)' : ''}`,
      );
    }
    const t = tokenResponse.parse(json);
    this.token = { value: t.access_token, expiresAt: Date.now() + (t.expires_in ?? 300) * 1000 };
    return t.access_token;
  }

  private async bearer(force = false): Promise<string> {
    if (!force && this.token && this.token.expiresAt - refreshMarginMs > Date.now()) return this.token.value;
    this.pending ??= this.fetchToken().finally(() => (this.pending = null));
    return this.pending;
  }

  private async send(url: URL, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init);
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new TransientError(`${url.pathname}: ${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`);
    }
  }

  /** POST a JSON body; a 401 signs in again once. Throws TransientError or PlatformError. */
  async post(path: string, body: unknown, timeoutMs = requestTimeoutMs, signal?: AbortSignal): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.bearer(attempt > 0);
      const deadline = AbortSignal.timeout(timeoutMs);
      const res = await this.send(this.endpoint(path), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([deadline, signal]) : deadline,
      });
      const json = await res.json().catch(() => null);
      if (res.status === 401 && attempt === 0) continue;
      if (res.status >= 500 || res.status === 429 || res.status === 408) throw new TransientError(`${path} answered HTTP ${res.status}`);
      if (!res.ok) {
        const p = problem.safeParse(json);
        throw new PlatformError(
          res.status,
          p.data?.type ?? '',
          `${path} answered HTTP ${res.status}: ${p.data?.detail ?? p.data?.title ?? ''}`,
        );
      }
      return json;
    }
  }

  async hello(req: HelloRequest): Promise<HelloResponse> {
    return helloResponse.parse(await this.post('/relay/hello', req));
  }

  /** The long poll: its deadline is the platform's wait plus 15 s. */
  async poll(req: PollRequest, waitMs: number, signal?: AbortSignal): Promise<PollResponse> {
    return pollResponse.parse(await this.post('/relay/poll', req, waitMs + 15_000, signal));
  }

  async result(callId: string, req: ResultRequest): Promise<void> {
    await this.post(`/relay/calls/${encodeURIComponent(callId)}/result`, req);
  }
}
