import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from 'mongodb';
import { ActionApplier, createdArtifactId, type AfterWrite, type Prefetched } from '../invocations/proposed-actions/apply.js';
import { missingPermission } from '../invocations/proposed-actions/permissions.js';
import type { ActionOutcome, RecordedAction } from '../invocations/proposed-actions/schema.js';
import { vetProposals } from '../invocations/proposed-actions/checks.js';
import { buildContext } from '../invocations/agents/context.js';
import { agentByName } from '../invocations/agents/registry.js';
import type { AgentArtifact } from '../invocations/agents/types.js';
import { principalOf, type PrincipalSnapshot } from '../identity/principal.js';
import type { Config } from '../kernel/config/env.js';
import { createLogger, type Logger } from '../kernel/logging/logger.js';
import { EventWorkflows } from '../workflow-clients/events.js';
import { IndexingWorkflows } from '../workflow-clients/indexing.js';
import { afterWrite, type AfterWriteSteps } from '../artifacts/after-write.js';
import { Llm, LlmError } from '../llm/client.js';
import { countInvocationStep } from '../observability/metrics-invocations.js';
import type { ExternalServers } from '../mcp-client/external.js';
import type { ArtifactDoc, ArtifactStore } from '../store/artifacts.js';
import { ContainerStore, type ContainerDoc } from '../store/containers.js';
import { isStorageUnavailable } from '../store/deadline.js';
import { McpCatalogStore } from '../store/mcp-catalog.js';
import type { SearchChangeStore } from '../store/search-changes.js';
import { stdioServers } from '../stdio-servers/index.js';
import { heartbeating, settle } from './call-support.js';
import { type AutomationTrigger, type ProposeInput } from '../workflows/contracts/agent-run.js';

export interface Proposal {
  actions: RecordedAction[];
  output: string | null;
}

/** The failure types an invocation reports (the API and the run state show them as `error.type`). */
export const invocationFailure = { refused: 'InvocationRefused', agent: 'AgentFailed' } as const;

/** Most workspace drafts an agent reads when no artifacts are named. */
const workspaceBound = 1000;

/** An LLM failure for Temporal: retried when another attempt may do better (timeout, 5xx, malformed reply). */
function llmFailure(err: LlmError): ApplicationFailure {
  return ApplicationFailure.create({ type: `llm-${err.kind.replace('_', '-')}`, message: err.message, nonRetryable: !err.retryable });
}

interface InvocationDeps {
  config: Config;
  logger: Logger;
  db: Db;
  artifacts: ArtifactStore;
  changes: SearchChangeStore;
  external: ExternalServers;
  containers: ContainerStore;
  catalog: McpCatalogStore;
  llm: Llm;
  policy: { stdio: ReturnType<typeof stdioServers>; inCollection: false };
}

type Principal = ReturnType<typeof principalOf>;

async function workspaceOf(d: InvocationDeps, principal: Principal, id: string) {
  const workspace = await d.containers.get('workspace', principal, id);
  if (!workspace)
    throw ApplicationFailure.nonRetryable(`Workspace ${id} is no longer visible to ${principal.subject}.`, invocationFailure.refused);
  return workspace;
}

/** The context artifacts the principal may read: named ones in visible containers, or the workspace's drafts. */
async function contextArtifacts(
  d: InvocationDeps,
  input: ProposeInput,
  principal: Principal,
  workspace: ContainerDoc,
): Promise<ArtifactDoc[]> {
  const readable = (doc: ArtifactDoc) => principal.scopes.allowsType('artifact:read', doc.content_type);
  // Each draft as its latest revision claim has it (the acknowledged revision, even where a late write
  // moved the stored document back: issue #30), one primary-key read per artifact given to the agent.
  if (input.artifactIds.length === 0) {
    const drafts = (await d.artifacts.drafts(input.workspaceId, null)).filter(readable).slice(0, workspaceBound);
    return (await d.artifacts.latestOf(drafts)).filter((doc) => !doc.archived_at && readable(doc));
  }
  const docs = new Map((await d.artifacts.currentMany(input.artifactIds)).map((doc) => [doc._id, doc]));
  // Each container is read once (the invocation's workspace was just read, with the same visibility filter).
  const containers = new Map<string, Promise<ContainerDoc | null>>([[`workspace:${workspace._id}`, Promise.resolve(workspace)]]);
  const visible = (doc: ArtifactDoc) => {
    const key = `${doc.container_kind}:${doc.collection_id}`;
    if (!containers.has(key)) containers.set(key, d.containers.get(doc.container_kind, principal, doc.collection_id));
    return containers.get(key)!;
  };
  const out: ArtifactDoc[] = [];
  for (const id of input.artifactIds) {
    const doc = docs.get(id);
    if (!doc || !readable(doc) || !(await visible(doc))) {
      throw ApplicationFailure.nonRetryable(`Artifact ${id} is not visible to ${principal.subject}.`, invocationFailure.refused);
    }
    out.push(doc);
  }
  return out;
}

/** An MCP server's tool as an agent: it gets the workspace and artifacts, and answers `structuredContent.{actions, output}`. */
async function serverAgent(
  d: InvocationDeps,
  input: ProposeInput,
  server: NonNullable<ProposeInput['server']>,
  artifacts: AgentArtifact[],
) {
  const args = {
    workspace_id: input.workspaceId,
    artifacts: artifacts.map(({ in_workspace: _, ...a }) => a),
    input: input.input,
    params: input.params,
  };
  const options = {
    maxTotalMs: d.config.MCP_CALL_MAX_SECONDS * 1000,
    signal: Context.current().cancellationSignal,
    person: input.principal.subject,
  };
  const result = await heartbeating(() => settle(() => d.external.callTool(server.id, server.tool, args, options, server.revision)));
  const text = result.content
    .flatMap((c) => (c.type === 'text' ? [c.text] : []))
    .join(' ')
    .slice(0, 500);
  if (result.isError) throw ApplicationFailure.nonRetryable(`The agent tool ${server.tool} failed: ${text}`, invocationFailure.agent);
  const out = result.structuredContent as { actions?: unknown; output?: unknown } | undefined;
  if (!Array.isArray(out?.actions))
    throw ApplicationFailure.nonRetryable(
      `The agent tool ${server.tool} returned no structuredContent.actions list.`,
      invocationFailure.agent,
    );
  return { actions: out.actions as unknown[], output: typeof out.output === 'string' ? out.output : null };
}

/** A built-in agent over its context; its failures as Temporal should treat them. */
async function builtinAgent(d: InvocationDeps, input: ProposeInput, docs: ArtifactDoc[], artifacts: AgentArtifact[]) {
  const agent = agentByName(input.agent);
  if (!agent) throw ApplicationFailure.nonRetryable(`No agent named ${input.agent}.`, invocationFailure.refused);
  const sources = { catalog: d.catalog, external: d.external, maxCallMs: d.config.MCP_CALL_TIMEOUT_SECONDS * 1000 };
  try {
    return await agent.run({
      workspaceId: input.workspaceId,
      artifacts,
      input: input.input,
      params: agent.params.parse(input.params),
      llm: d.llm,
      contextText: () => buildContext(docs, input.workspaceId, d.config.LLM_CONTEXT_TOKENS, sources),
      signal: Context.current().cancellationSignal,
    });
  } catch (err) {
    if (err instanceof LlmError) throw llmFailure(err);
    if (isStorageUnavailable(err)) throw err; // storage that did not answer: retried, not the agent's failure
    throw ApplicationFailure.nonRetryable(`The ${agent.name} agent failed: ${(err as Error).message}`, invocationFailure.agent);
  }
}

/** Runs the agent over its context and records what it proposes, each action checked against the workspace. */
async function proposeActions(d: InvocationDeps, input: ProposeInput): Promise<Proposal> {
  const principal = principalOf(input.principal);
  const workspace = await workspaceOf(d, principal, input.workspaceId);
  const docs = await contextArtifacts(d, input, principal, workspace);
  const artifacts: AgentArtifact[] = docs.map((doc) => ({
    id: doc._id,
    title: doc.title,
    content_type: doc.content_type,
    content: doc.content,
    context: doc.context,
    revision: doc.revision,
    collection_id: doc.collection_id,
    in_workspace: doc.container_kind === 'workspace' && doc.collection_id === input.workspaceId,
  }));
  const output = input.server ? await serverAgent(d, input, input.server, artifacts) : await builtinAgent(d, input, docs, artifacts);
  return {
    actions: await vetProposals(output.actions, {
      workspaceId: input.workspaceId,
      artifacts: d.artifacts,
      maxActions: d.config.INVOKE_MAX_ACTIONS,
      policy: d.policy,
      known: docs,
    }),
    output: output.output ?? null,
  };
}

/**
 * The worker's event relay for agents' writes, one per worker client: each write's event is already in
 * its revision claim (the outbox, issue #21), so the fast path hands it on behind the activity, in
 * batches, as the API does; the sweeper relays whatever it leaves (a failed drain, a worker killed).
 */
const relays = new WeakMap<object, EventWorkflows>();
function relayFor(d: InvocationDeps, client: ReturnType<typeof Context.current>['client']): EventWorkflows {
  let events = relays.get(client);
  if (!events) {
    events = new EventWorkflows(client, d.config.TEMPORAL_TASK_QUEUE, d.config.EVENTS_CONTINUE_AS_NEW_AFTER, {
      db: d.db,
      inline: d.config.EVENT_RELAY_INLINE,
      background: { onError: (err) => d.logger.warn({ err }, 'event relay after an applied action failed; the sweeper relays it') },
    });
    relays.set(client, events);
  }
  return events;
}

/** What follows each write an action makes, as a worker has it; the event id is the write's claim's, so a retry reports nothing twice. */
function afterWorkerWrite(d: InvocationDeps, client: ReturnType<typeof Context.current>['client']): AfterWrite {
  const events = relayFor(d, client);
  const indexing = new IndexingWorkflows(() => client, d.config.TEMPORAL_TASK_QUEUE);
  const steps: AfterWriteSteps = {
    index: (w) => Promise.all([d.changes.record(w.doc._id), w.kind !== 'artifact_deleted' && indexing.start(w.doc)]),
    publish: (w) => events.publishWrite(w),
  };
  return async (kind, doc, _key, changed) => {
    await afterWrite(steps, { kind, doc, actor: doc.provenance.updated_by, ...(changed ? { changed } : {}) }, 'throw');
  };
}

/**
 * Every artifact the actions write, read in one round trip (the targets of updates and deletes, the
 * fixed ids of creates), null where there is none: what the applier would otherwise read action by action.
 */
async function prefetch(d: InvocationDeps, invocationId: string, actions: RecordedAction[]): Promise<Prefetched> {
  const ids = actions.flatMap((a) =>
    a.kind === 'create' ? [createdArtifactId(invocationId, a.id)] : a.kind === 'update' || a.kind === 'delete' ? [a.target] : [],
  );
  const read: Prefetched = new Map(ids.map((id) => [id, null]));
  // As their latest revision claims have them (ArtifactStore.current), as the agent was given them.
  if (ids.length) for (const doc of await d.artifacts.currentMany([...new Set(ids)])) read.set(doc._id, doc);
  return read;
}

/** Apply mode, every action of the run: the ones the principal may not apply (none: all may go ahead). */
function refusals(principal: Principal, workspace: ContainerDoc, all: RecordedAction[], read: Prefetched): ActionOutcome[] {
  return all.flatMap((a): ActionOutcome[] => {
    const type = a.kind === 'create' ? a.payload.content_type : (read.get(a.target)?.content_type ?? 'application/octet-stream');
    const missing = missingPermission(principal, workspace, a.kind, type);
    return missing ? [{ id: a.id, status: 'refused', reason: `forbidden: ${missing}` }] : [];
  });
}

interface ApplyInput {
  invocationId: string;
  agent: string;
  workspaceId: string;
  principal: PrincipalSnapshot;
  actions: RecordedAction[];
  allOrNothing?: RecordedAction[];
  /** The run an automation started: its writes name it (provenance.source.automation). */
  automation?: AutomationTrigger;
}

/**
 * Applies a batch of actions as the principal; each is applied once however often this is retried.
 * `allOrNothing` (apply mode, every action of the run): when the principal may not apply every
 * one of them, nothing is applied and the refusals are the answer.
 */
async function applyActions(d: InvocationDeps, input: ApplyInput): Promise<ActionOutcome[]> {
  const principal = principalOf(input.principal);
  const workspace = await workspaceOf(d, principal, input.workspaceId);
  // One read for the batch's artifacts (apply mode: for every action, the permission check's too).
  const read = await prefetch(d, input.invocationId, input.allOrNothing ?? input.actions);
  if (input.allOrNothing) {
    const refused = refusals(principal, workspace, input.allOrNothing, read);
    if (refused.length) return refused;
  }
  const context = Context.current();
  // Writes go one by one, in order; what follows each goes on meanwhile: the index hand-off is done
  // before the batch counts as applied (a retry does it again, harmlessly); the event, already in the
  // write's claim, is relayed behind (relayFor).
  const report = afterWorkerWrite(d, context.client);
  const reports: Promise<void>[] = [];
  const applier = new ActionApplier(d.artifacts, async (...args) => void reports.push(report(...args)));
  const outcomes: ActionOutcome[] = [];
  for (const action of input.actions) {
    const scope = { invocationId: input.invocationId, agent: input.agent, workspace, principal };
    const automation = input.automation && {
      id: input.automation.automation_id,
      depth: input.automation.depth,
      event_id: input.automation.event_id,
    };
    outcomes.push(await applier.apply({ ...scope, ...(automation ? { automation } : {}) }, action, read));
    if (!context.info.isLocal) context.heartbeat(outcomes.length);
  }
  await Promise.all(reports);
  return outcomes;
}

export function createInvocationActivities(
  config: Config,
  db: Db,
  deps: { artifacts: ArtifactStore; changes: SearchChangeStore; external: ExternalServers },
) {
  const d: InvocationDeps = {
    config,
    logger: createLogger(config.LOG_LEVEL),
    db,
    ...deps,
    containers: new ContainerStore(db),
    catalog: new McpCatalogStore(db),
    llm: new Llm(config),
    policy: { stdio: stdioServers(config), inCollection: false },
  };
  return {
    proposeActions: (input: ProposeInput): Promise<Proposal> =>
      countInvocationStep(
        'propose',
        () => proposeActions(d, input),
        () => ['proposed'],
      ),
    applyActions: (input: ApplyInput): Promise<ActionOutcome[]> =>
      countInvocationStep(
        'apply',
        () => applyActions(d, input),
        (outcomes) => outcomes.map((o) => o.status),
      ),
  };
}
