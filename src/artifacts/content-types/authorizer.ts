import { z } from 'zod';

/** `content` of an `application/vnd.platform.authorizer+json` artifact (SPEC §2.4). */
export const authorizerContent = z.strictObject({
  provider: z.string().min(1),
  auth_url: z.url({ protocol: /^https?$/ }),
  token_url: z.url({ protocol: /^https?$/ }),
  scopes: z.array(z.string().min(1)),
  client_id: z.string().min(1),
  pkce: z.boolean(),
  secret_id: z.uuid({ error: 'must be a secret id (UUID)' }).optional(),
});
export type AuthorizerContent = z.infer<typeof authorizerContent>;
