import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';

type Json = Record<string, unknown>;

/** The keywords whose value is one schema, and those whose value is a list or a map of schemas (JSON Schema 2020-12). */
const oneSchema = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties'];
const schemaList = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const schemaMap = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/** What an unconstrained value (zod's `unknown`) is published as: every JSON type, said in words too. */
const anyJson: Json = {
  description: 'Any JSON value.',
  anyOf: ['string', 'number', 'boolean', 'object', 'array', 'null'].map((type) => ({ type })),
};

const isSchema = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A JSON Schema as every MCP client can read it: no `type` array (`["string", "null"]` becomes
 * `anyOf: [{type: string}, {type: null}]`), no bare `{}` (an `additionalProperties: {}` allows what
 * leaving it out allows, so it goes, as does an empty `properties`; an unconstrained value becomes "any
 * JSON value", each type named).
 * The meaning is unchanged: what validated before validates now.
 */
export function portableJsonSchema(schema: Json): Json {
  if (Object.keys(schema).length === 0) return { ...anyJson };
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties' && isSchema(value) && Object.keys(value).length === 0) continue;
    // No properties at all says nothing an object's `additionalProperties: false` does not (the spec's no-parameter form).
    if (key === 'properties' && isSchema(value) && Object.keys(value).length === 0) continue;
    if (oneSchema.includes(key) && isSchema(value)) out[key] = portableJsonSchema(value);
    else if (schemaList.includes(key) && Array.isArray(value)) out[key] = value.map((s) => (isSchema(s) ? portableJsonSchema(s) : s));
    else if (schemaMap.includes(key) && isSchema(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, isSchema(s) ? portableJsonSchema(s) : s]));
    else out[key] = value;
  }
  if (Array.isArray(out.type)) {
    const alternatives = { anyOf: (out.type as string[]).map((type) => ({ type })) };
    delete out.type;
    if (out.anyOf) {
      out.allOf = [...((out.allOf as Json[] | undefined) ?? []), { anyOf: out.anyOf }, alternatives];
      delete out.anyOf;
    } else out.anyOf = alternatives.anyOf;
  }
  return out;
}

/** A JSON Schema made immutable, all the way down: it is shared by every request that publishes it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * A tool's zod schema as the SDK publishes it: zod still validates the arguments, the JSON Schema in
 * tools/list is the portable form of zod's own. Converted once per process and conversion options
 * (schemas never change at run time), not once per request and server: the result is frozen, so
 * nothing that reads it can change what the next request publishes.
 */
export function published(schema: z.ZodType): StandardSchemaWithJSON {
  const standard = schema['~standard'] as unknown as StandardSchemaWithJSON['~standard'];
  type Options = Parameters<typeof standard.jsonSchema.input>[0];
  const converted = new Map<string, Json>();
  const once = (io: 'input' | 'output', options: Options): Json => {
    const key = `${io} ${JSON.stringify(options ?? {})}`;
    let json = converted.get(key);
    if (!json) converted.set(key, (json = deepFreeze(portableJsonSchema(standard.jsonSchema[io](options)))));
    return json;
  };
  return {
    '~standard': {
      ...standard,
      jsonSchema: {
        input: (options) => once('input', options),
        output: (options) => once('output', options),
      },
    },
  };
}
