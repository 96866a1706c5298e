import { z } from 'zod';

const uuid = z.uuid({ error: 'must be a UUID' });
const stepId = z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/, 'must be lower-case letters, digits, _ or -, starting with a letter');

/** Where a step's artifacts come from: listed ids, the invocation's input artifacts, or what an earlier step made or changed. */
export const artifactSource = z.union([
  z.array(uuid).max(200),
  z.literal('input'),
  z.string().regex(/^steps\.[a-z][a-z0-9_-]{0,62}$/, 'must be "input", "steps.<id>" or a list of artifact ids'),
]);

/** Per-step retry: a failed step runs again this many times in all, waiting longer each time. */
const retryPolicy = z.strictObject({
  maximum_attempts: z.int().min(1).max(20).default(1),
  initial_interval_seconds: z.number().min(0.1).max(3600).default(1),
  backoff_coefficient: z.number().min(1).max(10).default(2),
});

const templated = z.string().max(20_000).describe('May use {{input}} and {{steps.<id>.output}}.');

const agentStep = z.strictObject({
  id: stepId,
  kind: z.literal('agent'),
  agent: z.string().min(1).max(64),
  artifact_ids: artifactSource.default('input'),
  input: templated.optional(),
  params: z.record(z.string(), z.unknown()).default({}),
  retry: retryPolicy.optional(),
});
const llmStep = z.strictObject({
  id: stepId,
  kind: z.literal('llm'),
  input: templated,
  artifact_ids: artifactSource.default('input'),
  retry: retryPolicy.optional(),
});
const toolStep = z.strictObject({
  id: stepId,
  kind: z.literal('tool'),
  server_id: uuid,
  tool: z.string().min(1).max(256),
  arguments: z.record(z.string(), z.unknown()).default({}),
  retry: retryPolicy.optional(),
});
const approvalStep = z.strictObject({
  id: stepId,
  kind: z.literal('approval'),
  title: z.string().trim().min(1).max(500).optional(),
  timeout_seconds: z
    .int()
    .min(1)
    .max(90 * 86400)
    .default(7 * 86400),
});

export const transformStep = z.discriminatedUnion('kind', [agentStep, llmStep, toolStep, approvalStep]);
export type TransformStep = z.infer<typeof transformStep>;

/**
 * `application/vnd.platform.transform+json` (§2.2): a reusable multi-step operator. Steps run in
 * order; data flows by artifact ids (`artifact_ids: "steps.<id>"`) and outputs (`{{steps.<id>.output}}`).
 * `knownAgents` is checked here so that a bad step is named on create.
 */
export function transformContent(knownAgents: ReadonlySet<string>) {
  return z
    .strictObject({
      description: z.string().max(4000).optional(),
      steps: z.array(transformStep).min(1).max(25),
    })
    .superRefine((t, ctx) => {
      const seen = new Set<string>();
      t.steps.forEach((step, i) => {
        const at = (...path: (string | number)[]) => ['steps', i, ...path];
        if (seen.has(step.id)) ctx.addIssue({ code: 'custom', path: at('id'), message: `repeats the step id ${step.id}` });
        if (step.kind === 'agent' && !knownAgents.has(step.agent))
          ctx.addIssue({ code: 'custom', path: at('agent'), message: `is not a known agent (${[...knownAgents].join(', ')})` });
        if (step.kind === 'agent' && step.agent === 'llm')
          ctx.addIssue({ code: 'custom', path: at('agent'), message: 'use a step of kind "llm" for LLM calls' });
        const refs: [string, string][] = [];
        if ((step.kind === 'agent' || step.kind === 'llm') && typeof step.artifact_ids === 'string' && step.artifact_ids !== 'input')
          refs.push(['artifact_ids', step.artifact_ids.slice('steps.'.length)]);
        const texts = step.kind === 'tool' ? JSON.stringify(step.arguments) : step.kind === 'approval' ? '' : (step.input ?? '');
        for (const m of texts.matchAll(/\{\{\s*steps\.([a-z][a-z0-9_-]*)\.output\s*\}\}/g))
          refs.push([step.kind === 'tool' ? 'arguments' : 'input', m[1]!]);
        for (const [field, ref] of refs) {
          if (!seen.has(ref))
            ctx.addIssue({ code: 'custom', path: at(field), message: `refers to step ${ref}, which does not come before this one` });
        }
        seen.add(step.id);
      });
    });
}
export type TransformContent = { description?: string; steps: TransformStep[] };
