import { z } from 'zod';
import { passwordToken } from '../../operations/sign-in.js';
import { whoAmI } from '../../operations/users.js';
import { signInAttempt } from '../password-sign-in.js';
import { limitCredentialExchange } from '../middleware/rate-limit.js';
import { route, type RouteDef } from '../route.js';
import { tokenSchema } from '../../presenters/schemas.js';
import { jwksSchema, meSchema } from '../../presenters/credentials.js';

const loginBody = z.strictObject({ email: z.email(), password: z.string().min(1).max(1024) });

export const authRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/auth/login',
    access: 'public',
    doc: {
      summary: 'Sign in with e-mail and password',
      example: { email: 'admin@platform.local', password: 'your password' },
      response: tokenSchema,
    },
    guard: limitCredentialExchange,
    body: 'json',
    request: loginBody,
    handler: async (ctx, _query, body) => {
      const { email, password } = body();
      const token = await passwordToken(ctx.services, signInAttempt(ctx, email), password);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = token;
    },
  }),
  {
    // Who this token is: the person (their e-mail only to their own token), the actor, the scopes.
    method: 'get',
    path: '/me',
    access: 'authenticated',
    doc: { summary: 'Who this token stands for', response: meSchema },
    handler: async (ctx) => {
      const { principal, email } = await whoAmI(ctx);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        id: principal.subject,
        ...(email !== undefined ? { email } : {}),
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
    doc: { summary: 'The public keys that sign access tokens', tags: ['discovery'], response: jwksSchema },
    handler: (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = ctx.services.signingKeys.jwks();
    },
  },
];
