// Every workflow the worker runs. Bundled by @temporalio/worker: deterministic code only.
// Clients never import these files: they start a workflow by the type name in its contract
// (`./contracts/`), and this file checks at compile time that each workflow matches it.
import type { AgentRun } from './contracts/agent-run.js';
import type { CommitWorkspace } from './contracts/commit-workspace.js';
import type { ConnectionFlow } from './contracts/connection-flow.js';
import type { IndexArtifact } from './contracts/index-artifact.js';
import type { IndexBacklog } from './contracts/index-backlog.js';
import type { ImportArtifacts } from './contracts/import-artifacts.js';
import type { McpRun } from './contracts/mcp-run.js';
import type { TransformRun } from './contracts/transform-run.js';
import type { WorkspaceEvents } from './contracts/workspace-events.js';
import type { SubscriptionDelivery } from './contracts/subscription-delivery.js';
import type { StreamSession } from './contracts/stream-session.js';
import type { ChatTurnRun } from './contracts/chat-turn.js';
import { agentRun } from './agent-run.js';
import { commitWorkspace } from './commit-workspace.js';
import { connectionFlow } from './connection-flow.js';
import { indexArtifact } from './index-artifact.js';
import { indexBacklog } from './index-backlog.js';
import { importArtifacts } from './import-artifacts.js';
import { mcpRun } from './mcp-run.js';
import { transformRun } from './transform-run.js';
import { workspaceEvents } from './workspace-events.js';
import { subscriptionDelivery } from './subscription-delivery.js';
import { streamSession } from './stream-session.js';
import { chatTurn } from './chat-turn.js';

export {
  agentRun,
  commitWorkspace,
  connectionFlow,
  indexArtifact,
  indexBacklog,
  importArtifacts,
  mcpRun,
  transformRun,
  workspaceEvents,
  subscriptionDelivery,
  chatTurn,
  streamSession,
};

/** Each export under the name its contract gives (the workflow type is the export's name). */
type Registered = {
  agentRun: AgentRun;
  commitWorkspace: CommitWorkspace;
  connectionFlow: ConnectionFlow;
  indexArtifact: IndexArtifact;
  indexBacklog: IndexBacklog;
  importArtifacts: ImportArtifacts;
  mcpRun: McpRun;
  transformRun: TransformRun;
  workspaceEvents: WorkspaceEvents;
  subscriptionDelivery: SubscriptionDelivery;
  chatTurn: ChatTurnRun;
  streamSession: StreamSession;
};
type Matches<T extends Registered> = T;
export type Checked = Matches<{
  agentRun: typeof agentRun;
  commitWorkspace: typeof commitWorkspace;
  connectionFlow: typeof connectionFlow;
  indexArtifact: typeof indexArtifact;
  indexBacklog: typeof indexBacklog;
  importArtifacts: typeof importArtifacts;
  mcpRun: typeof mcpRun;
  transformRun: typeof transformRun;
  workspaceEvents: typeof workspaceEvents;
  subscriptionDelivery: typeof subscriptionDelivery;
  chatTurn: typeof chatTurn;
  streamSession: typeof streamSession;
}>;

/** Each contract's type name is the name its workflow is exported under (a typo would start nothing). */
type NamedAsExported<T extends { [K in keyof T]: K }> = T;
export type TypeNamesChecked = NamedAsExported<{
  agentRun: typeof import('./contracts/agent-run.js').agentRunType;
  commitWorkspace: typeof import('./contracts/commit-workspace.js').commitWorkspaceType;
  connectionFlow: typeof import('./contracts/connection-flow.js').connectionFlowType;
  indexArtifact: typeof import('./contracts/index-artifact.js').indexArtifactType;
  indexBacklog: typeof import('./contracts/index-backlog.js').indexBacklogType;
  importArtifacts: typeof import('./contracts/import-artifacts.js').importArtifactsType;
  mcpRun: typeof import('./contracts/mcp-run.js').mcpRunType;
  transformRun: typeof import('./contracts/transform-run.js').transformRunType;
  workspaceEvents: typeof import('./contracts/workspace-events.js').workspaceEventsType;
  subscriptionDelivery: typeof import('./contracts/subscription-delivery.js').subscriptionDeliveryType;
  chatTurn: typeof import('./contracts/chat-turn.js').chatTurnType;
  streamSession: typeof import('./contracts/stream-session.js').streamSessionType;
}>;
