import { z } from 'zod';
import { consentBody, consentKinds, grantConsent, listConsents, revokeConsent } from '../../operations/consents.js';
import { parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { consentListSchema, consentSchema, presentConsent } from '../../presenters/credentials.js';

/** Consents to X-On-Behalf-Of are granted here; an OAuth client's only on the consent page. All are revoked here. */
const params = z.object({ credential_kind: z.enum([...consentKinds, 'oauth_client']), credential_id: z.string().min(1).max(2000) });

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
      ctx.body = presentConsent(doc);
    },
  }),
  {
    method: 'get',
    path: '/consents',
    access: 'human',
    doc: { summary: 'List your consents', response: consentListSchema },
    handler: async (ctx) => {
      ctx.body = { items: (await listConsents(ctx)).map(presentConsent) };
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
