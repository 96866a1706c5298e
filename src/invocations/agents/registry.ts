import { v5 as uuidv5 } from 'uuid';
import { z } from 'zod';
import { dedupe } from './builtin/dedupe.js';
import { extract } from './builtin/extract.js';
import { answer, llmAgent, summarize } from './builtin/llm.js';
import { splitSections } from './builtin/split-sections.js';
import { tagKeywords } from './builtin/tag-keywords.js';
import type { Agent } from './types.js';

/** The content type built-in agents present as artifacts (docs/decisions.md); no one creates one. */
export const agentType = 'application/vnd.platform.agent+json';

const agentNamespace = 'd4a1c3e2-7b5f-4e8a-9c0d-1f2e3a4b5c6d';

/** An agent's fixed artifact id: built-in agents are addressable like any artifact (SPEC §4.2). */
export const agentId = (name: string) => uuidv5(`agent:${name}`, agentNamespace);

/** The built-in task agents: three that need no model, four backed by the configured LLM. */
export const agents: readonly Agent[] = [dedupe, tagKeywords, splitSections, summarize, llmAgent, extract, answer];

const byId = new Map(agents.map((a) => [agentId(a.name), a]));
const byName = new Map(agents.map((a) => [a.name, a]));

export const agentById = (id: string) => byId.get(id) ?? null;
export const agentByName = (name: string) => byName.get(name) ?? null;

/** An agent as `GET /agents` lists it: its id, what it does, what it may propose and its params' JSON Schema. */
export function presentAgent(a: Agent) {
  return {
    id: agentId(a.name),
    name: a.name,
    title: a.title,
    description: a.description,
    mode: a.name === 'llm' ? 'llm' : 'task_agent',
    uses_llm: a.usesLlm,
    actions: a.actions,
    params_schema: z.toJSONSchema(a.params, { io: 'input' }),
  };
}

/** A built-in agent as an artifact (GET /artifacts/{id}): read-only, in no container. */
export function agentArtifact(a: Agent) {
  return {
    id: agentId(a.name),
    title: a.title,
    content_type: agentType,
    content: JSON.stringify(presentAgent(a)),
    context: { builtin: true, agent: a.name },
    collection_id: null,
    container: null,
    state: 'committed',
    revision: 1,
  };
}
