import { z } from 'zod';
import { hashPassword } from '../../identity/passwords.js';
import { problems } from '../../kernel/errors/problem.js';
import { isDuplicateKey } from '../../store/mongo.js';
import { idParam, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';

const newUser = z.strictObject({
  email: z.email(),
  password: z.string().min(12, 'must be at least 12 characters').max(1024),
  is_admin: z.boolean().default(false),
});

export const adminRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/users',
    access: 'admin',
    doc: {
      summary: 'Create a user',
      status: 201,
      errors: [409],
      example: { email: 'ada@example.com', password: 'a long passphrase', is_admin: false },
    },
    body: 'json',
    request: newUser,
    handler: async (ctx, _query, body) => {
      const input = body();
      try {
        const user = await ctx.services.users.create(input.email, await hashPassword(input.password), input.is_admin);
        ctx.status = 201;
        ctx.body = { id: user._id, email: user.email, is_admin: user.is_admin, created_at: user.created_at.toISOString() };
      } catch (err) {
        if (isDuplicateKey(err)) throw problems.conflict('user-exists', `A user with e-mail ${input.email} already exists.`);
        throw err;
      }
    },
  }),
  {
    // Ends a sign-in lockout (and the growing delays before one) at once. An administrator's own
    // token only: never a server credential or API key, whatever its scopes.
    method: 'post',
    path: '/admin/users/:id/unlock',
    access: 'admin',
    doc: { summary: "End a user's sign-in lockout" },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      const user = await ctx.services.users.findById(id);
      if (!user) throw problems.notFound('user', id);
      await ctx.services.signIns.unlock(user.email, ctx.state.principal!.subject, ctx.state.requestId, user._id);
      ctx.body = { id: user._id, email: user.email, unlocked_at: new Date().toISOString() };
    },
  },
  {
    method: 'post',
    path: '/admin/signing-keys/rotate',
    access: 'admin',
    doc: { summary: 'Rotate the token signing key' },
    handler: async (ctx) => {
      const kid = await ctx.services.signingKeys.rotate();
      ctx.body = { kid, jwks: ctx.services.signingKeys.jwks() };
    },
  },
];
