// A small HTTP client for tests: JSON in, { status, headers, body } out, optionally signed in.

export interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export class Api {
  constructor(
    readonly url: string,
    readonly token?: string,
  ) {}

  withToken(token: string | undefined): Api {
    return new Api(this.url, token);
  }

  async login(email: string, password: string): Promise<Api> {
    const reply = await this.post('/auth/login', { email, password });
    if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${reply.text}`);
    return this.withToken(reply.body.access_token);
  }

  async request(
    method: string,
    path: string,
    init: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) };
    let body: string | undefined;
    if (init.raw !== undefined) body = init.raw;
    else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(this.url + path, { method, headers: { ...headers, ...init.headers }, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }
  post(path: string, body?: unknown) {
    return this.request('POST', path, { body });
  }
  patch(path: string, body?: unknown) {
    return this.request('PATCH', path, { body });
  }
  delete(path: string) {
    return this.request('DELETE', path);
  }
}

/** Polls until `check` returns a truthy value, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
