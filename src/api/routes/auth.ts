import { z } from 'zod';
import { decoyHash, verifyPassword } from '../../identity/passwords.js';
import { problems } from '../../kernel/errors/problem.js';
import { clientIp } from '../client-ip.js';
import { limitCredentialExchange } from '../middleware/rate-limit.js';
import { parse } from '../validate.js';
import type { RouteDef } from '../route.js';

const loginBody = z.strictObject({ email: z.email(), password: z.string().min(1).max(1024) });

export const authRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/auth/login',
    access: 'public',
    guard: limitCredentialExchange,
    body: 'json',
    handler: async (ctx) => {
      const { email, password } = parse(loginBody, ctx.state.body, 'body');
      const attempt = { email, ip: clientIp(ctx, ctx.services.config.TRUST_PROXY_HOPS), requestId: ctx.state.requestId };
      // Throttled per e-mail (429 sign-in-throttled, account-locked) before any password is checked.
      const { ok, personId } = await ctx.services.signIns.check(attempt, async () => {
        const user = await ctx.services.users.findByEmail(email);
        // The same work is done for an unknown e-mail, so response time does not reveal accounts.
        const matches = await verifyPassword(password, user?.password_hash ?? (await decoyHash));
        return { ok: !!user && matches, personId: user?._id ?? null };
      });
      if (!ok) throw problems.invalidCredentials();
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await ctx.services.tokens.issue(personId!, { kind: 'user' });
    },
  },
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    access: 'public',
    handler: (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = ctx.services.signingKeys.jwks();
    },
  },
];
