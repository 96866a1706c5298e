import { z } from 'zod';
import { resolveNames } from '../../operations/names.js';
import { namesSchema, presentNames } from '../../presenters/names.js';
import { route, type RouteDef } from '../route.js';

/** Most ids of each kind one call resolves. */
const maxIds = 100;

const ids = z
  .string()
  .max(maxIds * 80)
  .transform((s) => [...new Set(s.split(',').map((id) => id.trim()))].filter((id) => id.length > 0))
  .pipe(z.array(z.string().max(200, 'an id is at most 200 characters')).max(maxIds, `at most ${maxIds} ids`))
  .default([])
  .describe('Comma-separated ids.');

const namesQuery = z.object({ people: ids, api_keys: ids, server_credentials: ids, oauth_clients: ids, artifacts: ids });

/** Names for the ids provenance carries, each only where the caller may know it (issue #37). */
export const nameRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/names',
    access: 'artifact:read',
    doc: {
      summary: 'Name the people, credentials and artifacts behind ids',
      description:
        "Names for ids an artifact's provenance, a commit or an event carries: a person's e-mail, an API key's, server credential's or OAuth client's name, an artifact's title (a deleted draft's last title). Null where the caller may not know it, the same as for an id that does not exist.",
      response: namesSchema,
    },
    query: namesQuery,
    handler: async (ctx, query) => {
      ctx.body = presentNames(await resolveNames(ctx, query));
    },
  }),
];
