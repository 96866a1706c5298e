// A person's browser at the platform's sign-in and consent pages: plain GETs and form POSTs with a
// cookie jar, reading the forms out of the HTML the way a browser submits them. No script runs on
// those pages, so this is all a browser does there.
import { createHash, randomBytes } from 'node:crypto';

export interface PageReply {
  status: number;
  location: string | null;
  html: string;
  headers: Headers;
}

/** The `platform_session=…` pair a sign-in's answer sets, as a Cookie header carries it (undefined: none set). */
export function sessionCookie(headers: Headers): string | undefined {
  return headers
    .getSetCookie()
    .find((c) => c.startsWith('platform_session='))
    ?.split(';')[0];
}

/** The inputs a form would submit, keyed by name (checkboxes that are checked, the chosen radio). */
export function formFields(html: string, action: string): Record<string, string> {
  const form = new RegExp(`<form[^>]*action="${action.replace(/[/]/g, '\\/')}"[^>]*>([\\s\\S]*?)</form>`).exec(html);
  if (!form) throw new Error(`no form posting to ${action} in:\n${html.slice(0, 2000)}`);
  const fields: Record<string, string> = {};
  for (const input of form[1]!.matchAll(/<input([^>]*)>/g)) {
    const attr = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(input[1]!)?.[1];
    const name = attr('name');
    if (!name) continue;
    const type = attr('type') ?? 'text';
    if ((type === 'checkbox' || type === 'radio') && !/\bchecked\b/.test(input[1]!)) continue;
    fields[unescape(name)] = type === 'checkbox' && attr('value') === undefined ? 'on' : unescape(attr('value') ?? '');
  }
  return fields;
}

/** The "Return to the application" link of an error page, decoded as a browser would. */
export function returnLink(html: string): URL | null {
  const href = /<a class="button" href="([^"]*)">Return to the application<\/a>/.exec(html)?.[1];
  return href === undefined ? null : new URL(unescape(href));
}

const unescape = (s: string) => s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&');

export class Browser {
  private readonly jar = new Map<string, string>();

  constructor(readonly base: string) {}

  private remember(headers: Headers) {
    for (const cookie of headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, value] = pair!.split('=');
      if (/max-age=0/i.test(cookie)) this.jar.delete(name!);
      else this.jar.set(name!, value ?? '');
    }
  }

  private async send(url: string, init: RequestInit): Promise<PageReply> {
    const headers = new Headers(init.headers);
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(new URL(url, this.base), { ...init, headers, redirect: 'manual' });
    this.remember(res.headers);
    return { status: res.status, location: res.headers.get('location'), html: await res.text(), headers: res.headers };
  }

  get(url: string) {
    return this.send(url, { method: 'GET' });
  }

  post(action: string, fields: Record<string, string>) {
    return this.send(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Follows the platform's own 303s (not the final one to the client's redirect URI). */
  async follow(reply: PageReply): Promise<PageReply> {
    let current = reply;
    while (current.status === 303 && current.location?.startsWith('/')) current = await this.get(current.location);
    return current;
  }

  /** Signs in with a password on the login page shown in `page`; returns the page that follows. */
  async signIn(page: PageReply, email: string, password: string): Promise<PageReply> {
    const fields = formFields(page.html, '/oauth/login');
    return this.follow(await this.post('/oauth/login', { ...fields, email, password }));
  }

  /** Submits the consent page: allow (optionally changing fields) or deny. Returns the redirect to the client. */
  async decide(page: PageReply, decision: 'allow' | 'deny', change: Record<string, string | null> = {}): Promise<PageReply> {
    const fields: Record<string, string> = { ...formFields(page.html, '/oauth/consent'), decision };
    for (const [k, v] of Object.entries(change)) {
      if (v === null) delete fields[k];
      else fields[k] = v;
    }
    return this.post('/oauth/consent', fields);
  }
}

/** A PKCE pair (RFC 7636, S256). */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
