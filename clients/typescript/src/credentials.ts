// The bearer token of each call, as the reference client (src/platform-sdk/platform-client.ts) keeps it:
// a server credential's client_credentials token and a person's sign-in token are exchanged at most
// once at a time, reused until `refreshBeforeSeconds` before they expire, and exchanged again after a
// 401; an API key is sent as it is.
import { ConnectionError, PlatformError, ProblemError, TokenError } from './errors.js';

/** How the client authenticates. */
export type Credentials =
  /** An API key (`pk_…`): sent as the bearer token, never exchanged. */
  | { apiKey: string }
  /** A server credential: `grant_type=client_credentials` at `POST /auth/token`, optionally for fewer scopes. */
  | { clientId: string; clientSecret: string; scope?: string }
  /** A person's e-mail and password: `POST /auth/login`, signed in again when the token nears its end. */
  | { email: string; password: string }
  /** A token obtained elsewhere (an OAuth flow): a string, or a function asked again after a 401. */
  | { accessToken: string | (() => string | Promise<string>) };

/** What an exchange may use: the client's fetch, base URL and the call's abort signal. */
export interface ExchangeContext {
  fetch: typeof fetch;
  baseUrl: string;
  signal: AbortSignal;
}

export interface TokenSource {
  /** The token to send, exchanged first when there is none or it nears its end. */
  token(context: ExchangeContext): Promise<string>;
  /** After a 401: true when another token may do better (the cached one is dropped). */
  renew(): boolean;
}

interface Cached {
  value: string;
  expiresAt: number;
}

type Exchange = (context: ExchangeContext) => Promise<{ access_token: string; expires_in: number }>;

/** A token exchanged when needed and cached until `marginMs` before it expires; one exchange at a time. */
class ExchangedToken implements TokenSource {
  private cached: Cached | null = null;
  private pending: Promise<Cached> | null = null;

  constructor(
    private readonly exchange: Exchange,
    private readonly marginMs: number,
    private readonly now: () => number,
  ) {}

  async token(context: ExchangeContext): Promise<string> {
    if (this.cached && this.now() < this.cached.expiresAt - this.marginMs) return this.cached.value;
    // Calls that need a token while one is exchanged wait for it: one exchange, not one per call. The
    // exchange runs under the first caller's deadline; a later caller's own deadline still bounds its wait.
    this.pending ??= this.exchange(context)
      .then((t) => ({ value: t.access_token, expiresAt: this.now() + t.expires_in * 1000 }))
      .finally(() => (this.pending = null));
    this.cached = await abortable(this.pending, context.signal);
    return this.cached.value;
  }

  renew(): boolean {
    this.cached = null;
    return true;
  }
}

/** Waits for `promise`, or rejects as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (err: unknown) => (signal.removeEventListener('abort', onAbort), reject(err)),
    );
  });
}

async function post(context: ExchangeContext, path: string, headers: Record<string, string>, body: string): Promise<Response> {
  try {
    return await context.fetch(`${context.baseUrl}${path}`, { method: 'POST', headers, body, signal: context.signal });
  } catch (err) {
    if (context.signal.aborted) throw context.signal.reason;
    throw new ConnectionError('POST', path, err);
  }
}

function tokenAnswer(text: string, path: string): { access_token: string; expires_in: number } {
  const body = JSON.parse(text) as { access_token?: unknown; expires_in?: unknown };
  if (typeof body.access_token !== 'string' || typeof body.expires_in !== 'number')
    throw new PlatformError(`POST ${path}: the answer holds no access_token and expires_in`, 'POST', path);
  return { access_token: body.access_token, expires_in: body.expires_in };
}

function clientCredentials(clientId: string, clientSecret: string, scope: string | undefined): Exchange {
  const path = '/auth/token';
  return async (context) => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    if (scope) form.set('scope', scope);
    const res = await post(
      context,
      path,
      { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      String(form),
    );
    const text = await res.text();
    if (!res.ok) {
      let error = 'invalid_response';
      let description: string | undefined = text.slice(0, 2000);
      try {
        const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
        if (typeof body.error === 'string') [error, description] = [body.error, String(body.error_description ?? '') || undefined];
      } catch {
        // not OAuth's JSON: its text is the description
      }
      throw new TokenError(res.status, error, description, 'POST', path);
    }
    return tokenAnswer(text, path);
  };
}

function passwordSignIn(email: string, password: string): Exchange {
  const path = '/auth/login';
  return async (context) => {
    const res = await post(
      context,
      path,
      { 'content-type': 'application/json', accept: 'application/json' },
      JSON.stringify({ email, password }),
    );
    const text = await res.text();
    if (!res.ok) throw ProblemError.from(res.status, text, res.headers, 'POST', path);
    return tokenAnswer(text, path);
  };
}

/** The token source of `credentials`. */
export function tokenSource(credentials: Credentials, options: { refreshBeforeSeconds: number; now: () => number }): TokenSource {
  const margin = options.refreshBeforeSeconds * 1000;
  if ('apiKey' in credentials) return { token: async () => credentials.apiKey, renew: () => false };
  if ('clientId' in credentials)
    return new ExchangedToken(clientCredentials(credentials.clientId, credentials.clientSecret, credentials.scope), margin, options.now);
  if ('email' in credentials) return new ExchangedToken(passwordSignIn(credentials.email, credentials.password), margin, options.now);
  const given = credentials.accessToken;
  return { token: async () => (typeof given === 'string' ? given : given()), renew: () => typeof given === 'function' };
}
