import { escapeHtml, htmlPage } from '../kernel/html.js';
import { platformInfo } from '../kernel/platform-info.js';

/** What each scope lets a client do, in the words a person reads on the consent page (SPEC §2.8). */
export const scopeDescriptions: Record<string, string> = {
  'artifact:read': 'Read artifacts in your workspaces and collections',
  'artifact:write': 'Create and update artifacts',
  'artifact:manage': 'Archive, revert or delete artifacts',
  'artifact:invoke': 'Run agents and tools',
  'search:read': 'Search your workspaces and collections',
  'stream:read': 'Read live streams',
  'stream:ingest': 'Write to streams',
  'events:subscribe': 'Subscribe to workspace events (signed webhooks)',
};

const style = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.4rem}label{display:block;margin:.6rem 0}input[type=email],input[type=password]{width:100%;padding:.5rem;font:inherit}
button,.button{font:inherit;padding:.5rem 1.1rem;margin:.8rem .5rem 0 0;border-radius:6px;border:1px solid #8c959f;background:#f6f8fa;cursor:pointer;text-decoration:none;color:inherit;display:inline-block}
button.primary{background:#1f6feb;border-color:#1f6feb;color:#fff}.error{color:#b42318;font-weight:600}.muted{color:#57606a;font-size:.9rem}
fieldset{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0}code{background:#f6f8fa;padding:0 .2rem}`;

function page(title: string, body: string): string {
  return htmlPage({
    title: `${title} · ${platformInfo.name}`,
    style,
    head: '<meta name="referrer" content="same-origin">',
    body: `<main>${body}</main>`,
  });
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

/** What signing in leads to: an application's authorization request, or the person's own authorizations. */
export type SignInFor = { request: string; clientName: string } | { next: 'consents' };

export interface LoginPage {
  target: SignInFor;
  error?: string;
  email?: string;
  providers: { name: string; label: string }[];
}

export function loginPage(p: LoginPage): string {
  const query = 'request' in p.target ? `request=${encodeURIComponent(p.target.request)}` : 'next=consents';
  const providers = p.providers
    .map((idp) => `<a class="button" href="/oauth/idp/${encodeURIComponent(idp.name)}?${query}">Sign in with ${escapeHtml(idp.label)}</a>`)
    .join('');
  const heading =
    'request' in p.target ? `Sign in to continue to ${escapeHtml(p.target.clientName)}` : 'Sign in to see what you have allowed';
  return page(
    'Sign in',
    `<h1>${heading}</h1>
${p.error ? `<p class="error" role="alert">${escapeHtml(p.error)}</p>` : ''}
<form method="post" action="/oauth/login">${'request' in p.target ? hidden('request', p.target.request) : hidden('next', 'consents')}
<label>E-mail <input type="email" name="email" autocomplete="username" required value="${escapeHtml(p.email ?? '')}"></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button class="primary" type="submit">Sign in</button></form>
${providers ? `<p class="muted">Or</p><p>${providers}</p>` : ''}`,
  );
}

export interface ConsentPage {
  client: { name: string; id: string; verified: boolean; redirectHost: string };
  person: string;
  scopes: string[];
  workspaces: { id: string; name: string }[];
  request: string;
  formToken: string;
  error?: string;
}

export function consentPage(p: ConsentPage): string {
  const scopes = p.scopes
    .map(
      (s) =>
        `<label><input type="checkbox" name="scope:${escapeHtml(s)}" checked> ${escapeHtml(scopeDescriptions[s] ?? s)} <code>${escapeHtml(s)}</code></label>`,
    )
    .join('');
  const workspaces = p.workspaces
    .map((w) => `<label><input type="checkbox" name="workspace:${escapeHtml(w.id)}"> ${escapeHtml(w.name)}</label>`)
    .join('');
  const origin = p.client.verified
    ? `<p class="muted">Client id <code>${escapeHtml(p.client.id)}</code>; it will be sent back to <code>${escapeHtml(p.client.redirectHost)}</code>.</p>`
    : `<p class="muted">This application registered itself: its name is its own claim. It will be sent back to <code>${escapeHtml(p.client.redirectHost)}</code>. Allow it only if you started this from an application you trust.</p>`;
  return page(
    'Allow access',
    `<h1>${escapeHtml(p.client.name)} wants to use your account</h1>
<p>Signed in as <strong>${escapeHtml(p.person)}</strong>.</p>${origin}
${p.error ? `<p class="error" role="alert">${escapeHtml(p.error)}</p>` : ''}
<form method="post" action="/oauth/consent">${hidden('request', p.request)}${hidden('form_token', p.formToken)}
<fieldset><legend>It may</legend>${scopes}</fieldset>
<fieldset><legend>In</legend><label><input type="radio" name="workspaces" value="all" checked> All your workspaces and collections</label>
<label><input type="radio" name="workspaces" value="selected"> Only the workspaces ticked below</label>${workspaces}</fieldset>
<button class="primary" type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>
<form method="post" action="/oauth/sign-out">${hidden('request', p.request)}<button type="submit">Not you? Sign out</button></form>
<p class="muted">You can revoke this at any time on <a href="/oauth/consents">your authorizations</a>.</p>`,
  );
}

/** An error for the person; `back`: a link that returns the error to the application that asked. */
export function errorPage(title: string, detail: string, back?: string): string {
  const link = back ? `<p><a class="button" href="${escapeHtml(back)}">Return to the application</a></p>` : '';
  return page(title, `<h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(detail)}</p>${link}`);
}

export interface ConsentsPage {
  person: string;
  formToken: string;
  consents: { kind: string; id: string; name: string; scopes: string[]; workspaces: string; since: string }[];
}

/** What a person has allowed (OAuth clients, and credentials acting on their behalf), each revocable. */
export function consentsPage(p: ConsentsPage): string {
  const rows = p.consents
    .map(
      (
        c,
      ) => `<fieldset><legend>${escapeHtml(c.name)}</legend><p class="muted">${escapeHtml(c.kind)} <code>${escapeHtml(c.id)}</code>, since ${escapeHtml(c.since)}</p>
${c.scopes.length ? `<p>${c.scopes.map((s) => escapeHtml(scopeDescriptions[s] ?? s)).join('; ')}. In ${escapeHtml(c.workspaces)}.</p>` : ''}
<form method="post" action="/oauth/consents/revoke">${hidden('form_token', p.formToken)}${hidden('credential_kind', c.kind)}${hidden('credential_id', c.id)}<button type="submit">Revoke</button></form></fieldset>`,
    )
    .join('');
  return page(
    'Your authorizations',
    `<h1>What you have allowed</h1><p>Signed in as <strong>${escapeHtml(p.person)}</strong>.</p>
${rows || '<p>Nothing: no application or credential may act for you.</p>'}
<form method="post" action="/oauth/sign-out"><button type="submit">Sign out</button></form>`,
  );
}

/** How an OAuth connection's sign-in at an external authorizer ended, as the person's browser lands back. */
export interface ConnectionOutcomePage {
  outcome: 'connected' | 'failed' | 'pending';
  title: string;
  message: string;
}

const connectionStyle =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}' +
  '.connected{color:#17663a}.failed{color:#a3261b}.pending{color:#8a5a00}';

/** The small page the person's browser lands on after the provider (GET /connections/{authorizer_id}/callback). */
export function connectionOutcomePage(p: ConnectionOutcomePage): string {
  return htmlPage({
    title: p.title,
    style: connectionStyle,
    bodyAttributes: { 'data-outcome': p.outcome },
    body: `<h1 class="${escapeHtml(p.outcome)}">${escapeHtml(p.title)}</h1><p>${escapeHtml(p.message)}</p>`,
  });
}
