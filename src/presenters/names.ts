import { z } from 'zod';

const named = z.object({ id: z.string(), name: z.string().nullable().describe('Null when unknown, or not yours to know.') });

/** `GET /names`: a name for each id asked about, or null (issue #37; docs/decisions.md, "Names for ids"). */
export const namesSchema = z
  .object({
    people: z.array(
      z.object({
        id: z.string(),
        email: z.string().nullable().describe('Told to the person, an administrator, and the people they share a container with.'),
        you: z.boolean(),
      }),
    ),
    api_keys: z.array(named),
    server_credentials: z.array(named),
    oauth_clients: z.array(named),
    artifacts: z.array(
      z.object({
        id: z.string(),
        title: z.string().nullable(),
        content_type: z.string().optional(),
        deleted: z.literal(true).optional().describe('A deleted draft: its last title.'),
      }),
    ),
  })
  .meta({ id: 'Names' });

export type Names = z.output<typeof namesSchema>;

/** The names as resolved (operations/names.ts): already only what the caller may know. */
export const presentNames = (names: Names): Names => names;
