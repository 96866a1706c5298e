import { z } from 'zod';
import { consentBody, consentKinds, grantConsent, listConsents, revokeConsent } from '../../operations/consents.js';
import type { ConsentDoc } from '../../store/consents.js';
import { parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { consentListSchema, consentSchema } from '../../presenters/credentials.js';

/** Consents to X-On-Behalf-Of are granted here; an OAuth client's only on the consent page. All are revoked here. */
const params = z.object({ credential_kind: z.enum([...consentKinds, 'oauth_client']), credential_id: z.string().min(1).max(2000) });

function present(doc: ConsentDoc) {
  return {
    credential_kind: doc.credential_kind,
    credential_id: doc.credential_id,
    created_at: doc.created_at.toISOString(),
    ...(doc.oauth ? { client_name: doc.oauth.client_name, scopes: doc.oauth.scopes, resource_filters: doc.oauth.filters } : {}),
  };
}

/**
 * Consents: a person authorizes a server credential or API key to act on their behalf
 * (X-On-Behalf-Of, SPEC §5.5). Only the person, with their own token, grants or revokes.
 */
export const consentRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/consents',
    access: 'human',
    doc: {
      summary: 'Let a server credential or API key act for you',
      status: 201,
      example: { credential_kind: 'api_key', credential_id: '0123456789abcdef0123456789abcdef' },
      response: consentSchema,
    },
    body: 'json',
    request: consentBody,
    handler: async (ctx, _query, body) => {
      const doc = await grantConsent(ctx, body());
      ctx.status = 201;
      ctx.body = present(doc);
    },
  }),
  {
    method: 'get',
    path: '/consents',
    access: 'human',
    doc: { summary: 'List your consents', response: consentListSchema },
    handler: async (ctx) => {
      ctx.body = { items: (await listConsents(ctx)).map(present) };
    },
  },
  {
    method: 'delete',
    path: '/consents/:credential_kind/:credential_id',
    access: 'human',
    doc: { summary: 'Withdraw a consent' },
    handler: async (ctx) => {
      const { credential_kind, credential_id } = parse(params, ctx.params, 'path');
      await revokeConsent(ctx, credential_kind, credential_id);
      ctx.status = 204;
    },
  },
];
