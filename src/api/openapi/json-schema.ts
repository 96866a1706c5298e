import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as JSON Schema draft 2020-12 (OpenAPI 3.1's dialect), as the client sends it
 * (`io: 'input'`: defaults make a field optional, a transform shows what it takes). What JSON Schema
 * cannot say (a refinement, a custom check) is left open rather than failing the document: the zod
 * schema still checks it, and answers a 400 naming the field.
 */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
  return rest;
}

/** Whether the schema takes an empty object, i.e. whether a request may leave the body out. */
export const acceptsEmpty = (schema: z.ZodType | undefined): boolean => !schema || schema.safeParse({}).success;
