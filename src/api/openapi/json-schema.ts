import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as JSON Schema draft 2020-12 (OpenAPI 3.1's dialect), as the client sends it
 * (`io: 'input'`: defaults make a field optional, a transform shows what it takes) or, for a
 * response, as the server sends it (`io: 'output'`: a closed object says `additionalProperties:
 * false`). What JSON Schema cannot say (a refinement, a custom check) is left open rather than
 * failing the document: the zod schema still checks it, and answers a 400 naming the field.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
  return rest;
}

/**
 * A response schema for the document: its named parts (a schema given `.meta({ id })`, such as
 * `Artifact`) moved into `schemas`, the document's `components.schemas`, and referred to there, so
 * that a generated client names them. Two different schemas under one name are a programming error.
 */
export function responseSchemaOf(schema: z.ZodType, schemas: Record<string, JsonSchema>): JsonSchema {
  const { $defs, ...rest } = jsonSchemaOf(schema, 'output') as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const toComponents = (value: JsonSchema): JsonSchema =>
    JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
  for (const [name, def] of Object.entries($defs ?? {})) {
    const moved = toComponents(def);
    const known = schemas[name];
    if (known && JSON.stringify(known) !== JSON.stringify(moved)) throw new Error(`Two response schemas are named ${name}`);
    schemas[name] = moved;
  }
  return toComponents(rest);
}

/** Whether the schema takes an empty object, i.e. whether a request may leave the body out. */
export const acceptsEmpty = (schema: z.ZodType | undefined): boolean => !schema || schema.safeParse({}).success;
