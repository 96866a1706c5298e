import { z } from 'zod';
import { problems } from '../kernel/errors/problem.js';
import type { SecretDoc } from '../store/secrets.js';
import type { OperationContext } from './services.js';

/** Secrets (SPEC §2.3 rule 3, §4.1), owned by the person who stored them: their value is never answered. */

export const secretBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  value: z
    .string()
    .min(1)
    .max(64 * 1024),
});

export function storeSecret(ctx: OperationContext, input: z.infer<typeof secretBody>): Promise<SecretDoc> {
  return ctx.services.secrets.create(ctx.state.principal.subject, input.name, input.value);
}

export function listSecrets(ctx: OperationContext): Promise<SecretDoc[]> {
  return ctx.services.secrets.list(ctx.state.principal.subject);
}

export async function readSecret(ctx: OperationContext, id: string): Promise<SecretDoc> {
  const doc = await ctx.services.secrets.get(ctx.state.principal.subject, id);
  if (!doc) throw problems.notFound('secret', id);
  return doc;
}

export async function deleteSecret(ctx: OperationContext, id: string): Promise<void> {
  if (!(await ctx.services.secrets.delete(ctx.state.principal.subject, id))) throw problems.notFound('secret', id);
}
