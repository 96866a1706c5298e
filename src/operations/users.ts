import { z } from 'zod';
import { hashPassword } from '../identity/passwords.js';
import { isHuman, type Principal } from '../identity/principal.js';
import { problems } from '../kernel/errors/problem.js';
import { isDuplicateKey } from '../store/mongo.js';
import type { UserDoc } from '../store/users.js';
import type { OperationContext } from './services.js';

/** People: who a token stands for, and what an administrator does for them. */

export const newUserBody = z.strictObject({
  email: z.email(),
  password: z.string().min(12, 'must be at least 12 characters').max(1024),
  is_admin: z.boolean().default(false),
});

/** Who this token is: the person (their e-mail only to their own token), the actor, the scopes. */
export async function whoAmI(ctx: OperationContext): Promise<{ principal: Principal; email?: string }> {
  const { principal } = ctx.state;
  const user = isHuman(principal) ? await ctx.services.users.findById(principal.subject) : null;
  return { principal, ...(user ? { email: user.email } : {}) };
}

/** An administrator creates a person (409 user-exists for a taken e-mail). */
export async function createUser(ctx: OperationContext, input: z.infer<typeof newUserBody>): Promise<UserDoc> {
  try {
    return await ctx.services.users.create(input.email, await hashPassword(input.password), input.is_admin);
  } catch (err) {
    if (isDuplicateKey(err)) throw problems.conflict('user-exists', `A user with e-mail ${input.email} already exists.`);
    throw err;
  }
}

/** Ends a person's sign-in lockout (and the growing delays before one) at once. */
export async function unlockUser(ctx: OperationContext, id: string): Promise<UserDoc> {
  const user = await ctx.services.users.findById(id);
  if (!user) throw problems.notFound('user', id);
  await ctx.services.signIns.unlock(user.email, ctx.state.principal.subject, ctx.state.requestId, user._id);
  return user;
}

/** A new token signing key; the previous ones still verify the tokens they signed. */
export async function rotateSigningKey(
  ctx: OperationContext,
): Promise<{ kid: string; jwks: ReturnType<OperationContext['services']['signingKeys']['jwks']> }> {
  const kid = await ctx.services.signingKeys.rotate();
  return { kid, jwks: ctx.services.signingKeys.jwks() };
}
