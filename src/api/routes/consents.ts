import { z } from 'zod';
import { problems } from '../../kernel/errors/problem.js';
import type { ConsentDoc } from '../../store/consents.js';
import type { AppContext } from '../context.js';
import { parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';

/** Consents to X-On-Behalf-Of are granted here; an OAuth client's only on the consent page. All are revoked here. */
const kinds = ['server_credential', 'api_key'] as const;
const consentBody = z.strictObject({ credential_kind: z.enum(kinds), credential_id: z.string().min(1).max(200) });
const params = z.object({ credential_kind: z.enum([...kinds, 'oauth_client']), credential_id: z.string().min(1).max(2000) });

function present(doc: ConsentDoc) {
  return {
    credential_kind: doc.credential_kind,
    credential_id: doc.credential_id,
    created_at: doc.created_at.toISOString(),
    ...(doc.oauth ? { client_name: doc.oauth.client_name, scopes: doc.oauth.scopes, resource_filters: doc.oauth.filters } : {}),
  };
}

async function credentialExists(ctx: AppContext, kind: (typeof kinds)[number], id: string): Promise<boolean> {
  return kind === 'server_credential'
    ? (await ctx.services.serverCredentials.get(id)) !== null
    : (await ctx.services.apiKeys.get(id)) !== null;
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
    },
    body: 'json',
    request: consentBody,
    handler: async (ctx, _query, body) => {
      const input = body();
      if (!(await credentialExists(ctx, input.credential_kind, input.credential_id))) {
        throw problems.validation(`No ${input.credential_kind} ${input.credential_id}.`, [
          { name: 'credential_id', reason: 'unknown credential' },
        ]);
      }
      ctx.status = 201;
      ctx.body = present(await ctx.services.consents.grant({ person_id: ctx.state.principal!.subject, ...input }));
    },
  }),
  {
    method: 'get',
    path: '/consents',
    access: 'human',
    doc: { summary: 'List your consents' },
    handler: async (ctx) => {
      ctx.body = { items: (await ctx.services.consents.list(ctx.state.principal!.subject)).map(present) };
    },
  },
  {
    method: 'delete',
    path: '/consents/:credential_kind/:credential_id',
    access: 'human',
    doc: { summary: 'Withdraw a consent' },
    handler: async (ctx) => {
      const { credential_kind, credential_id } = parse(params, ctx.params, 'path');
      if (!(await ctx.services.consents.revoke(ctx.state.principal!.subject, credential_kind, credential_id))) {
        throw problems.notFound('consent', credential_id);
      }
      ctx.status = 204;
    },
  },
];
