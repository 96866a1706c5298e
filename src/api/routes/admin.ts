import { createUser, newUserBody, rotateSigningKey, unlockUser } from '../../operations/users.js';
import { idParam, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { rotatedSigningKeySchema, unlockedUserSchema, userSchema } from '../../presenters/credentials.js';

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
      response: userSchema,
    },
    body: 'json',
    request: newUserBody,
    handler: async (ctx, _query, body) => {
      const user = await createUser(ctx, body());
      ctx.status = 201;
      ctx.body = { id: user._id, email: user.email, is_admin: user.is_admin, created_at: user.created_at.toISOString() };
    },
  }),
  route({
    // Ends a sign-in lockout (and the growing delays before one) at once. An administrator's own
    // token only: never a server credential or API key, whatever its scopes.
    method: 'post',
    path: '/admin/users/:id/unlock',
    access: 'admin',
    doc: { summary: "End a user's sign-in lockout", response: unlockedUserSchema },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      const user = await unlockUser(ctx, id);
      ctx.body = { id: user._id, email: user.email, unlocked_at: new Date().toISOString() };
    },
  }),
  route({
    method: 'post',
    path: '/admin/signing-keys/rotate',
    access: 'admin',
    doc: { summary: 'Rotate the token signing key', response: rotatedSigningKeySchema },
    handler: async (ctx) => {
      ctx.body = await rotateSigningKey(ctx);
    },
  }),
];
