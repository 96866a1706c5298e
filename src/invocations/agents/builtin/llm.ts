import { z } from 'zod';
import { actionKinds, type ProposedAction } from '../../proposed-actions/schema.js';
import { defineAgent, type AgentRun } from '../types.js';

const nullableString = { type: ['string', 'null'] };

/** Proposed actions as the model writes them: flat, every field present (strict structured outputs). */
const modelActionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'target', 'title', 'content', 'content_type', 'message', 'rationale'],
  properties: {
    kind: { type: 'string', enum: [...actionKinds] },
    target: { type: 'string', description: 'create, log: the workspace id; update, delete: the artifact id' },
    title: { ...nullableString, description: 'create: the title; update: a new title or null' },
    content: { ...nullableString, description: 'create: the content; update: new content or null' },
    content_type: { ...nullableString, description: 'create: a MIME type, text/markdown by default' },
    message: { ...nullableString, description: 'log: the note' },
    rationale: { type: 'string', description: 'why this action' },
  },
} as const;

const modelAction = z.object({
  kind: z.enum(actionKinds),
  target: z.string(),
  title: z.string().nullable(),
  content: z.string().nullable(),
  content_type: z.string().nullable(),
  message: z.string().nullable(),
  rationale: z.string(),
});
type ModelAction = z.infer<typeof modelAction>;

const definedOnly = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

/** A model's action in the platform's shape; the invocation checks it like any agent's. */
function toProposal(a: ModelAction): ProposedAction {
  const payload =
    a.kind === 'create'
      ? { title: a.title, content_type: a.content_type ?? 'text/markdown', content: a.content }
      : a.kind === 'update'
        ? definedOnly({ title: a.title, content: a.content })
        : a.kind === 'log'
          ? { message: a.message }
          : {};
  return { kind: a.kind, target: a.target, payload, rationale: a.rationale } as ProposedAction;
}

const system = (run: AgentRun<unknown>, task: string) =>
  [
    'You are a task agent of a knowledge platform. You read artifacts and propose actions; a person or policy decides whether they are applied.',
    `The workspace id is ${run.workspaceId}. Propose actions only on this workspace and on artifacts in it.`,
    'Actions: create (target: the workspace id), update (target: an artifact id), delete (target: an artifact id), log (target: the workspace id, a note). Each needs a rationale.',
    task,
  ].join('\n');

/**
 * LLM mode (SPEC §4.3): direct model-backed synthesis. The model answers the input over the context
 * artifacts and may propose actions; its reply is structured output (JSON Schema, strict).
 */
export const llmAgent = defineAgent({
  name: 'llm',
  title: 'LLM synthesis',
  description:
    'Direct model-backed synthesis: answers the input over the context artifacts, and may propose create, update, delete and log actions.',
  usesLlm: true,
  actions: actionKinds,
  params: z.strictObject({}),
  async run(run) {
    if (!run.input) throw new TypeError('LLM mode needs an input: the instruction or question.');
    const reply = await run.llm.structured({
      name: 'agent_reply',
      system: system(run, 'Answer in `output`; put proposed changes in `actions` (an empty list when none is needed).'),
      user: `Context artifacts:\n${await run.contextText()}\n\nInput:\n${run.input}`,
      jsonSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['output', 'actions'],
        properties: { output: { type: 'string' }, actions: { type: 'array', items: modelActionSchema } },
      },
      parse: z.object({ output: z.string(), actions: z.array(modelAction) }),
      signal: run.signal,
    });
    return { output: reply.output, actions: reply.actions.map(toProposal) };
  },
});

/** Summarizes the context artifacts into one new draft (an LLM-backed task agent). */
export const summarize = defineAgent({
  name: 'summarize',
  title: 'Summarize into a new artifact',
  description: 'Proposes one new text/markdown artifact that summarizes the context artifacts; the input, when given, steers the summary.',
  usesLlm: true,
  actions: ['create'],
  params: z.strictObject({ max_words: z.int().min(20).max(2000).default(250) }),
  async run(run) {
    const reply = await run.llm.structured({
      name: 'summary',
      system: `You write faithful summaries of the artifacts you are given, in Markdown, at most ${run.params.max_words} words. Invent nothing.`,
      user: `Artifacts:\n${await run.contextText()}${run.input ? `\n\nFocus: ${run.input}` : ''}`,
      jsonSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'summary'],
        properties: { title: { type: 'string' }, summary: { type: 'string' } },
      },
      parse: z.object({ title: z.string().trim().min(1).max(500), summary: z.string().min(1) }),
      signal: run.signal,
    });
    const sources = run.artifacts.map((a) => a.id);
    return {
      output: reply.summary,
      actions: [
        {
          kind: 'create',
          target: run.workspaceId,
          payload: { title: reply.title, content_type: 'text/markdown', content: reply.summary, context: { summary_of: sources } },
          rationale: `Summary of ${sources.length} artifact(s): ${sources.join(', ')}.`,
        },
      ],
    };
  },
});

/** Answers a question from the context artifacts, citing them by id (the `ask` tool runs it over search hits). */
export const answer = defineAgent({
  name: 'answer',
  title: 'Answer from the artifacts',
  description: 'Answers the input from the context artifacts only, citing the artifact ids it used. Proposes nothing.',
  usesLlm: true,
  actions: [],
  params: z.strictObject({}),
  async run(run) {
    if (!run.input) throw new TypeError('answer needs an input: the question.');
    const reply = await run.llm.structured({
      name: 'grounded_answer',
      system:
        'Answer the question from the artifacts given, and only from them. Cite the ids of the artifacts you used. If they do not answer it, say so.',
      user: `Artifacts:\n${await run.contextText()}\n\nQuestion: ${run.input}`,
      jsonSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['answer', 'citations'],
        properties: { answer: { type: 'string' }, citations: { type: 'array', items: { type: 'string' } } },
      },
      parse: z.object({ answer: z.string(), citations: z.array(z.string()) }),
      signal: run.signal,
    });
    // A citation must name an artifact the model was given.
    const given = new Set(run.artifacts.map((a) => a.id));
    return {
      output: JSON.stringify({ answer: reply.answer, citations: [...new Set(reply.citations)].filter((c) => given.has(c)) }),
      actions: [],
    };
  },
});
