import { decoyHash, verifyPassword } from '../identity/passwords.js';
import { clientIp } from './client-ip.js';
import type { AppContext } from './context.js';

/**
 * Checks a person's e-mail and password, throttled per account (429 sign-in-throttled,
 * account-locked) before any password is checked. The same work is done for an unknown e-mail, so
 * response time does not reveal accounts. The person's id, or null.
 */
export async function passwordSignIn(ctx: AppContext, email: string, password: string): Promise<string | null> {
  const attempt = { email, ip: clientIp(ctx, ctx.services.config.TRUST_PROXY_HOPS), requestId: ctx.state.requestId };
  const { ok, personId } = await ctx.services.signIns.check(attempt, async () => {
    const user = await ctx.services.users.findByEmail(email);
    const matches = await verifyPassword(password, user?.password_hash ?? (await decoyHash));
    return { ok: !!user && matches, personId: user?._id ?? null };
  });
  return ok ? personId : null;
}
