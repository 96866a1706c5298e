import { Ajv } from 'ajv';
import { z } from 'zod';
import { LlmError } from '../../../llm/client.js';
import { defineAgent } from '../types.js';

const ajv = new Ajv({ allErrors: false, strict: false });

/** A caller's JSON Schema, compiled; null with the reason when it is not one. */
export function compileSchema(
  schema: Record<string, unknown>,
): { ok: true; validate: ReturnType<Ajv['compile']> } | { ok: false; reason: string } {
  try {
    return { ok: true, validate: ajv.compile(schema) };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

export const extractParams = z.strictObject({
  schema: z
    .record(z.string(), z.unknown())
    .refine((s) => compileSchema(s).ok, {
      error: (i) => `is not a valid JSON Schema: ${(compileSchema(i.input as Record<string, unknown>) as { reason: string }).reason}`,
    })
    .describe('The JSON Schema the extracted information must satisfy.'),
  title: z.string().trim().min(1).max(500).optional().describe('Title of the new artifact; "Extracted information" by default.'),
});

/**
 * Structured extraction (the `extract_information` tool): the model reads the source artifacts and
 * answers with JSON satisfying the caller's schema, checked here again; the result is proposed as a
 * new `application/json` artifact.
 */
export const extract = defineAgent({
  name: 'extract',
  title: 'Extract structured information',
  description:
    'Reads the source artifacts and proposes one new application/json artifact holding the information they contain, shaped by the given JSON Schema.',
  usesLlm: true,
  actions: ['create'],
  params: extractParams,
  async run(run) {
    const reply = await run.llm.structured({
      name: 'extraction',
      system:
        'You extract information from documents into JSON that satisfies the given schema. Use only what the documents say; leave out what they do not say unless the schema requires it.',
      user: `Documents:\n${await run.contextText()}${run.input ? `\n\nInstructions: ${run.input}` : ''}`,
      jsonSchema: { type: 'object', additionalProperties: false, required: ['data'], properties: { data: run.params.schema } },
      strict: false,
      parse: z.object({ data: z.unknown() }),
      signal: run.signal,
    });
    const check = compileSchema(run.params.schema);
    if (check.ok && !check.validate(reply.data))
      throw new LlmError('malformed', `The extracted data does not satisfy the schema: ${ajv.errorsText(check.validate.errors)}`);
    const sources = run.artifacts.map((a) => a.id);
    return {
      output: JSON.stringify(reply.data),
      actions: [
        {
          kind: 'create',
          target: run.workspaceId,
          payload: {
            title: run.params.title ?? 'Extracted information',
            content_type: 'application/json',
            content: JSON.stringify(reply.data, null, 2),
            context: { extracted_from: sources },
          },
          rationale: `Information extracted from ${sources.join(', ')} against the given schema.`,
        },
      ],
    };
  },
});
