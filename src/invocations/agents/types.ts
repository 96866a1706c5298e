import type { z } from 'zod';
import type { ActionKind, ProposedAction } from '../proposed-actions/schema.js';
import type { Llm } from '../../llm/client.js';
import { isPlatformType } from '../../artifacts/content-types/base-type.js';

/** An artifact as an agent sees it: what it may read, and the revision its proposals are based on. */
export interface AgentArtifact {
  id: string;
  title: string;
  content_type: string;
  content: string;
  context: Record<string, unknown>;
  revision: number;
  collection_id: string;
  in_workspace: boolean;
}

export interface AgentRun<P> {
  /** The workspace the invocation is scoped to: every action must stay in it. */
  workspaceId: string;
  /** The context artifacts: the ones named, or the workspace's drafts when none were. */
  artifacts: AgentArtifact[];
  /** Free-text input (a prompt, an instruction), or null. */
  input: string | null;
  params: P;
  llm: Llm;
  /** The artifacts as model context within the token budget, condensed by `summarize` (§4.6) where a type server offers it. */
  contextText(): Promise<string>;
  signal: AbortSignal;
}

export interface AgentOutput {
  actions: ProposedAction[];
  /** What the agent says besides its actions: an answer, a report. */
  output?: string;
}

/** A named task agent (SPEC §4.3 task-agent mode). It reads; it only proposes. */
export interface Agent<P = unknown> {
  name: string;
  title: string;
  description: string;
  /** Needs a language model (LLM_MODEL): refused with 503 when none is configured. */
  usesLlm: boolean;
  /** The kinds of action it may propose: apply mode needs the scopes and grants for each. */
  actions: readonly ActionKind[];
  params: z.ZodType<P>;
  run(run: AgentRun<P>): Promise<AgentOutput>;
}

/** Declares an agent with its params' type inferred from the schema. */
export const defineAgent = <S extends z.ZodType>(agent: Agent<z.output<S>> & { params: S }): Agent => agent as unknown as Agent;

/** Text worth reading: not a platform configuration (JSON of a server, a transform) and not binary. */
export const isTextual = (a: Pick<AgentArtifact, 'content_type'>) => {
  const t = a.content_type.toLowerCase();
  return !isPlatformType(t) && (t.startsWith('text/') || t.includes('json') || t.includes('xml') || t.includes('markdown'));
};
