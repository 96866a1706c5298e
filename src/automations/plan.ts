import type { SearchAttributePair } from '@temporalio/common';
import type { AutomationContent } from '../artifacts/content-types/automation.js';
import { baseType, mcpServerType, transformType } from '../artifacts/content-types/index.js';
import type { TransformContent } from '../artifacts/content-types/transform.js';
import type { RecordedEvent } from '../events/types.js';
import { flagNames, grantsOf } from '../identity/grants.js';
import { snapshotOf, userPrincipal, type Principal } from '../identity/principal.js';
import { agentById, agentByName, agents } from '../invocations/agents/registry.js';
import type { Agent } from '../invocations/agents/types.js';
import { actionNeeds } from '../invocations/proposed-actions/permissions.js';
import type { Config } from '../kernel/config/env.js';
import { llmConfigured } from '../llm/client.js';
import type { ArtifactDoc, ArtifactStore } from '../store/artifacts.js';
import type { ContainerDoc, ContainerStore } from '../store/containers.js';
import type { UserStore } from '../store/users.js';
import { invocationAttributes } from '../temporal/search-attributes.js';
import { agentRunType, type AgentRunInput, type AutomationTrigger } from '../workflows/contracts/agent-run.js';
import { mcpRunType, type McpRunInput } from '../workflows/contracts/mcp-run.js';
import { transformRunType, type TransformRunInput } from '../workflows/contracts/transform-run.js';
import { renderEvent } from './match.js';

export interface PlanDeps {
  config: Config;
  artifacts: ArtifactStore;
  containers: ContainerStore;
  users: UserStore;
}

/** What to start for one automation and one event: a workflow by type name, its input and search attributes. */
export type Start =
  | { workflow: typeof agentRunType; input: AgentRunInput; attributes: SearchAttributePair[] }
  | { workflow: typeof transformRunType; input: TransformRunInput; attributes: SearchAttributePair[] }
  | { workflow: typeof mcpRunType; input: McpRunInput; attributes: SearchAttributePair[] };

export type Plan = { start: Start } | { refused: string };

class Refused extends Error {}
const refuse = (reason: string): never => {
  throw new Refused(reason);
};

/** The grant an apply-mode agent needs for every kind of action it may propose (the person holds every scope). */
function requireApply(agent: Agent, workspace: ContainerDoc, person: string, what: string): void {
  for (const kind of agent.actions) {
    const needs = actionNeeds[kind];
    if (needs && !grantsOf(workspace, person).has(needs.flag))
      refuse(`forbidden: ${what} may propose ${kind} actions, which need the ${needs.flag} (${flagNames[needs.flag]}) grant`);
  }
}

/**
 * Decides, with the creator's grants as they are now, what the automation runs for the event, or why
 * it is refused: the creator is gone or lost the workspace's I grant, someone else wrote the
 * automation's content since, the agent needs a model none is configured for, the target is gone.
 */
export async function plan(d: PlanDeps, doc: ArtifactDoc, a: AutomationContent, event: RecordedEvent, invocationId: string): Promise<Plan> {
  try {
    return { start: await planStart(d, doc, a, event, invocationId) };
  } catch (err) {
    if (err instanceof Refused) return { refused: err.message };
    throw err;
  }
}

async function planStart(d: PlanDeps, doc: ArtifactDoc, a: AutomationContent, event: RecordedEvent, invocationId: string): Promise<Start> {
  const creator = doc.provenance.created_by;
  const author = doc.secrets_owner ?? creator;
  if (author !== creator)
    refuse(
      `edited-by-another-person: ${author} wrote this automation's content since; it runs only as its creator, who must save it again`,
    );
  if (!(await d.users.findById(creator))) refuse(`creator-gone: person ${creator} no longer exists`);
  // The creator's own grants, with the scopes of their own sign-in (the only one that may write an automation).
  const principal: Principal = userPrincipal(creator, false);
  const workspace = await d.containers.get('workspace', principal, doc.collection_id);
  if (!workspace) refuse(`forbidden: workspace ${doc.collection_id} is no longer visible to ${creator}`);
  if (!grantsOf(workspace!, creator).has('I'))
    refuse(`forbidden: ${creator} no longer holds the I (invoke) grant on workspace ${workspace!._id}`);

  const automation: AutomationTrigger = {
    automation_id: doc._id,
    event_id: event.id,
    event_kind: event.kind,
    artifact_id: event.artifact_id,
    depth: (event.depth ?? 0) + 1,
  };
  const common = { invocationId, workspaceId: workspace!._id, automation };
  const attributes = (agent: string, mode: string) =>
    invocationAttributes({ workspaceId: workspace!._id, artifactId: doc._id, principalId: creator, runKind: 'automation', agent, mode });
  const run = a.run;

  if ('agent' in run) {
    const agent = agentByName(run.agent) ?? agentById(run.agent) ?? refuse(`not-found: no agent ${run.agent}`);
    if (agent.usesLlm && !llmConfigured(d.config)) refuse(`llm-not-configured: the ${agent.name} agent needs a language model`);
    if (a.mode === 'apply') requireApply(agent, workspace!, creator, `the ${agent.name} agent`);
    const params = agent.params.safeParse(run.params);
    if (!params.success) refuse(`invalid: run.params ${params.error.issues[0]!.message}`);
    if (agent.name === 'llm' && !run.input) refuse('invalid: LLM mode needs run.input');
    const input: AgentRunInput = {
      ...common,
      agent: agent.name,
      callsOut: agent.usesLlm,
      mode: a.mode,
      artifactIds: run.artifacts === 'event' ? [event.artifact_id] : [],
      input: run.input ?? null,
      params: params.data,
      principal: snapshotOf(principal),
      previewExpirySeconds: d.config.INVOKE_PREVIEW_EXPIRY_SECONDS,
    };
    return { workflow: agentRunType, input, attributes: attributes(agent.name, a.mode) };
  }

  if ('transform' in run) {
    const t = await d.artifacts.get(run.transform);
    const visible = t && (await d.containers.get(t.container_kind, principal, t.collection_id));
    if (!t || !visible || baseType(t.content_type) !== transformType)
      refuse(`not-found: no transform ${run.transform} visible to ${creator}`);
    if (t!.archived_at) refuse(`archived: transform ${run.transform} is archived`);
    const definition = JSON.parse(t!.content) as TransformContent;
    const serverRevisions: Record<string, number> = {};
    for (const step of definition.steps) {
      if (step.kind === 'agent' || step.kind === 'llm') {
        const agent = agentByName(step.kind === 'llm' ? 'llm' : step.agent) ?? refuse(`not-found: step ${step.id}'s agent`);
        if (agent.usesLlm && !llmConfigured(d.config)) refuse(`llm-not-configured: step ${step.id} (${agent.name}) needs a language model`);
        requireApply(agent, workspace!, creator, `step ${step.id} (${agent.name})`);
      } else if (step.kind === 'tool') {
        serverRevisions[step.server_id] = (await serverOf(d, step.server_id, workspace!._id)).revision;
      }
    }
    const input: TransformRunInput = {
      ...common,
      transformId: t!._id,
      revision: t!.revision,
      definition,
      artifactIds: event.kind === 'artifact_deleted' ? [] : [event.artifact_id],
      input: run.input ?? null,
      principal: snapshotOf(principal),
      llmAgents: agents.filter((x) => x.usesLlm).map((x) => x.name),
      serverRevisions,
      maxCallSeconds: d.config.MCP_CALL_MAX_SECONDS,
    };
    return { workflow: transformRunType, input, attributes: attributes('transform', 'apply') };
  }

  const server = await serverOf(d, run.tool.server_id, workspace!._id);
  const input: McpRunInput = {
    ...common,
    serverId: server._id,
    serverRevision: server.revision,
    principalId: creator,
    operation: {
      kind: 'call_tool',
      name: run.tool.name,
      arguments: renderEvent(run.tool.arguments, event),
      maxTotalMs: d.config.MCP_CALL_MAX_SECONDS * 1000,
    },
  };
  return { workflow: mcpRunType, input, attributes: attributes(`mcp:${run.tool.name}`, 'apply') };
}

/** An MCP server registered in the automation's workspace (external server access belongs to a workspace, §1). */
async function serverOf(d: PlanDeps, id: string, workspaceId: string): Promise<ArtifactDoc> {
  const server = await d.artifacts.get(id);
  if (!server || baseType(server.content_type) !== mcpServerType || server.collection_id !== workspaceId)
    refuse(`not-found: no MCP server ${id} in workspace ${workspaceId}`);
  if (server!.archived_at) refuse(`archived: MCP server ${id} is archived`);
  return server!;
}
