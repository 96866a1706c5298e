import { z } from 'zod';
import { isHuman } from '../../identity/principal.js';
import { problems } from '../../kernel/errors/problem.js';
import { passwordSignIn } from '../password-sign-in.js';
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
      const personId = await passwordSignIn(ctx, email, password);
      if (!personId) throw problems.invalidCredentials();
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await ctx.services.tokens.issue(personId, { kind: 'user' });
    },
  },
  {
    // Who this token is: the person (their e-mail only to their own token), the actor, the scopes.
    method: 'get',
    path: '/me',
    access: 'authenticated',
    handler: async (ctx) => {
      const principal = ctx.state.principal!;
      const own = isHuman(principal);
      const user = own ? await ctx.services.users.findById(principal.subject) : null;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        id: principal.subject,
        ...(user ? { email: user.email } : {}),
        is_admin: principal.isAdmin,
        actor: principal.actor,
        scopes: principal.scopes.toJSON(),
      };
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
