/**
 * The pieces the response schemas are built from. Each presenter exports the zod schema of what it
 * returns; the routes name it as `doc.response`, the OpenAPI document derives the response's JSON
 * Schema from it (api/openapi/json-schema.ts, as the request bodies are), and test/contract checks
 * that real responses validate against it and that a client generated from the document compiles.
 *
 * Objects are closed (`z.object`: no field beyond those listed), so a presenter that adds a field
 * without declaring it fails the contract test. Values the platform passes through without owning
 * their shape (artifact context, a tool's result, a JSON Schema) are open objects.
 */
import { z } from 'zod';

/** An ISO 8601 time with its offset (`2026-01-01T00:00:00.000Z`), as every presenter writes a date. */
export const timestamp = z.string().meta({ format: 'date-time' });

/** A count or a number that the platform keeps whole. */
export const count = z.number().int().min(0);

/** A JSON object whose keys are the caller's or a third party's (context, metadata, a tool result). */
export const openObject = z.record(z.string(), z.unknown());

/** One page of a list: the items, and the cursor of the next page (null on the last). */
export const page = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null: the last page.'),
  });

/** A list answered whole (never paged): what a person holds of a kind is bounded. */
export const list = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });

export const actorKinds = ['user', 'server_credential', 'api_key', 'oauth_client'] as const;
/** Who acted: a person's own token (`user`) or a credential acting for them. */
export const actorSchema = z.object({ kind: z.enum(actorKinds), id: z.string() }).meta({ id: 'Actor' });

/** Which workspaces and collections a credential may reach: `*` or a list of ids. */
export const resourceFiltersSchema = z
  .object({
    workspaces: z.union([z.literal('*'), z.array(z.string())]),
    collections: z.union([z.literal('*'), z.array(z.string())]),
  })
  .meta({ id: 'ResourceFilters' });

export const containerKinds = ['workspace', 'collection'] as const;

/** Where a write came from (an artifact's provenance source): open, for sources record more as they grow. */
export const sourceSchema = z.looseObject({
  kind: z.enum(['api', 'mcp', 'agent', 'commit', 'import', 'stream']),
  request_id: z.string().optional(),
  import_id: z.string().optional(),
  stream_id: z.string().optional(),
  session_id: z.string().optional(),
  invocation_id: z.string().optional(),
  action_id: z.string().optional(),
  agent: z.string().optional(),
  derived_from: z.string().optional(),
  commit_id: z.string().optional(),
  approved_by: z.string().optional(),
  automation: z.object({ id: z.string(), depth: count, event_id: z.string() }).optional(),
  lifecycle: z.literal('on_create').optional(),
  via: z.object({ kind: z.enum(actorKinds), id: z.string() }).optional(),
});

/** Who created and last changed an artifact, when, and through what. */
export const provenanceSchema = z
  .object({
    created_by: z.string(),
    created_at: timestamp,
    updated_by: z.string(),
    updated_at: timestamp,
    source: sourceSchema,
  })
  .meta({ id: 'Provenance' });

/** The access token a sign-in, a key exchange or the token endpoint answers with. */
export const tokenSchema = z
  .object({
    access_token: z.string(),
    token_type: z.string().describe('`bearer`'),
    expires_in: z.number().int().describe('Seconds the token is valid for.'),
    scope: z.string().optional().describe('The scopes granted, space-separated.'),
    refresh_token: z.string().optional(),
  })
  .meta({ id: 'Token' });

/** What `DELETE`-like actions and RFC 7009 revocation answer: nothing to say. */
export const emptySchema = z.object({});
