import type { ConsentDoc } from '../../store/consents.js';
import { consentsPage } from '../../presenters/sign-in-pages.js';
import { personAuthorizations, revokeAuthorization } from '../../operations/authorizations.js';
import type { AppContext } from '../context.js';
import { PageError } from '../oauth/authorization-request.js';
import { readSession, redirect, sameOriginForm, sendPage } from '../oauth/browser.js';
import { asPage, checkFormToken, showLogin, signedInPerson } from '../oauth/pages.js';
import type { RouteDef } from '../route.js';

/** The revoke forms' anti-forgery value: bound to this browser's session, like the consent form's. */
const formToken = (ctx: AppContext) => ctx.services.browserSessions.formToken(readSession(ctx) ?? '', 'consents');

const kinds = new Set(['oauth_client', 'server_credential', 'api_key']);

function describe(doc: ConsentDoc) {
  const filters = doc.oauth?.filters;
  const workspaces =
    !filters || filters.workspaces === '*' ? 'all your workspaces and collections' : `${filters.workspaces.length} chosen workspace(s)`;
  return {
    kind: doc.credential_kind,
    id: doc.credential_id,
    name: doc.oauth?.client_name ?? `${doc.credential_kind.replace('_', ' ')} acting for you`,
    scopes: doc.oauth?.scopes ?? [],
    workspaces,
    since: doc.created_at.toISOString().slice(0, 10),
  };
}

/**
 * A person's authorizations in the browser: what they allowed (OAuth clients, and credentials acting
 * for them), each revocable. The same records as `GET /consents`, for people who have no password
 * token to call it with (an account made by an external sign-in has no password).
 */
export const oauthConsentRoutes: RouteDef[] = [
  {
    method: 'get',
    path: '/oauth/consents',
    access: 'public',
    doc: { summary: 'What you have allowed (a page, with the sign-in session)', produces: 'text/html' },
    handler: (ctx) =>
      asPage(ctx, async () => {
        const person = await signedInPerson(ctx);
        if (!person) return showLogin(ctx, { next: 'consents' });
        const { user, consents } = await personAuthorizations(ctx.services, person);
        sendPage(ctx, 200, consentsPage({ person: user?.email ?? person, formToken: formToken(ctx), consents: consents.map(describe) }));
      }),
  },
  {
    method: 'post',
    path: '/oauth/consents/revoke',
    access: 'public',
    doc: { summary: "Revoke an authorization (the page's form)", status: 303, responseDescription: 'Back to the page' },
    guard: sameOriginForm,
    body: 'form',
    handler: (ctx) =>
      asPage(ctx, async () => {
        const form = ctx.state.body as Record<string, string | undefined>;
        const person = await signedInPerson(ctx);
        if (!person) return showLogin(ctx, { next: 'consents' }, 401, 'Your session has ended. Sign in again.');
        checkFormToken(ctx, form.form_token, 'consents');
        if (!form.credential_kind || !kinds.has(form.credential_kind) || !form.credential_id)
          throw new PageError('Choose an authorization to revoke.');
        await revokeAuthorization(ctx.services, person, form.credential_kind, form.credential_id);
        redirect(ctx, '/oauth/consents');
      }),
  },
];
