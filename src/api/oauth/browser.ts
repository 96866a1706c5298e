import type { AppContext } from '../context.js';
import { publicBase } from '../public-url.js';

import { problems } from '../../kernel/errors/problem.js';

const sessionCookie = 'platform_session';
const externalCookie = 'platform_external_sign_in';

/**
 * The pages' forms post only from the pages themselves: a browser says where a POST came from
 * (Sec-Fetch-Site, Origin), and one from another site is refused. This is what stops login CSRF (an
 * attacker's page signing a visitor in as the attacker), which SameSite cookies cannot: the sign-in
 * form needs no cookie.
 */
export function sameOriginForm(ctx: AppContext): void {
  const refuse = () => problems.forbidden('This form may only be sent from the platform’s own page.');
  // Browsers that send Sec-Fetch-Site say it outright; for others, the Origin must be ours if sent.
  const site = ctx.get('sec-fetch-site');
  if (site) {
    if (site !== 'same-origin' && site !== 'none') throw refuse();
    return;
  }
  const origin = ctx.get('origin');
  if (!origin) return;
  const ours = [new URL(publicBase(ctx, ctx.services.config)).origin, new URL(ctx.services.config.apiUri).origin];
  if (!ours.includes(origin)) throw refuse();
}

/**
 * An HTML page for a person's browser: never cached, never framed (clickjacking), no script at all,
 * and forms may post only here, or (the redirect after a decision) to the client's redirect URI.
 */
export function sendPage(ctx: AppContext, status: number, html: string, redirectUri?: string): void {
  let formTarget = '';
  if (redirectUri) {
    const url = new URL(redirectUri);
    formTarget = url.protocol === 'http:' || url.protocol === 'https:' ? ` ${url.origin}` : ` ${url.protocol}`;
  }
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  // same-origin, not no-referrer: under no-referrer a browser posts the pages' forms with `Origin: null`,
  // which sameOriginForm could not tell from another site's. Nothing is sent to other origins.
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${formTarget}; frame-ancestors 'none'; base-uri 'none'`,
  );
  ctx.body = html;
}

/** Over https the cookie is `__Host-` prefixed: Secure, this host only, path /, so no sibling subdomain can plant one. */
const cookieName = (ctx: AppContext) =>
  publicBase(ctx, ctx.services.config).startsWith('https:') ? `__Host-${sessionCookie}` : sessionCookie;

export function readSession(ctx: AppContext): string | undefined {
  return ctx.cookies.get(cookieName(ctx)) || undefined;
}

/** The session cookie: HttpOnly, SameSite=Lax (no cross-site POST carries it), Secure over https. */
export function writeSession(ctx: AppContext, value: string | null): void {
  const secure = publicBase(ctx, ctx.services.config).startsWith('https:') ? '; Secure' : '';
  const life = value === null ? '; Max-Age=0' : '; Max-Age=28800';
  ctx.append('Set-Cookie', `${cookieName(ctx)}=${value ?? ''}; Path=/; HttpOnly; SameSite=Lax${secure}${life}`);
}

/** The cookie that holds a pending external sign-in (null: cleared): only the provider's callback path reads it. */
export function writeExternalSignIn(ctx: AppContext, provider: string, value: string | null): void {
  const secure = publicBase(ctx, ctx.services.config).startsWith('https:') ? '; Secure' : '';
  const life = value === null ? '; Max-Age=0' : '; Max-Age=600';
  ctx.append(
    'Set-Cookie',
    `${externalCookie}=${value ?? ''}; Path=/oauth/idp/${provider}/callback; HttpOnly; SameSite=Lax${secure}${life}`,
  );
}

export function readExternalSignIn(ctx: AppContext): string | undefined {
  return ctx.cookies.get(externalCookie);
}

export function redirect(ctx: AppContext, location: string): void {
  ctx.status = 303;
  ctx.set('Location', location);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = '';
}
