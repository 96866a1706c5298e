import { z } from 'zod';
import { problems } from '../kernel/errors/problem.js';
import type { ConsentDoc } from '../store/consents.js';
import type { OperationContext } from './services.js';

/**
 * Consents: a person authorizes a server credential or API key to act on their behalf
 * (X-On-Behalf-Of, SPEC §5.5). Only the person, with their own token, grants or revokes. An OAuth
 * client's consent is granted on the consent page only; every kind is revoked here.
 */

export const consentKinds = ['server_credential', 'api_key'] as const;
export const consentBody = z.strictObject({ credential_kind: z.enum(consentKinds), credential_id: z.string().min(1).max(200) });

async function credentialExists(ctx: OperationContext, kind: (typeof consentKinds)[number], id: string): Promise<boolean> {
  return kind === 'server_credential'
    ? (await ctx.services.serverCredentials.get(id)) !== null
    : (await ctx.services.apiKeys.get(id)) !== null;
}

export async function grantConsent(ctx: OperationContext, input: z.infer<typeof consentBody>): Promise<ConsentDoc> {
  if (!(await credentialExists(ctx, input.credential_kind, input.credential_id))) {
    throw problems.validation(`No ${input.credential_kind} ${input.credential_id}.`, [
      { name: 'credential_id', reason: 'unknown credential' },
    ]);
  }
  return ctx.services.consents.grant({ person_id: ctx.state.principal.subject, ...input });
}

export function listConsents(ctx: OperationContext): Promise<ConsentDoc[]> {
  return ctx.services.consents.list(ctx.state.principal.subject);
}

export async function revokeConsent(ctx: OperationContext, kind: string, credentialId: string): Promise<void> {
  if (!(await ctx.services.consents.revoke(ctx.state.principal.subject, kind, credentialId))) {
    throw problems.notFound('consent', credentialId);
  }
}
