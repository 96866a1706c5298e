import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/** Custom search attributes that make every run findable in the Temporal UI (DESIGN: workflows). */
export const WorkspaceId = defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD);
export const ArtifactId = defineSearchAttributeKey('ArtifactId', SearchAttributeType.KEYWORD);
export const PrincipalId = defineSearchAttributeKey('PrincipalId', SearchAttributeType.KEYWORD);
export const RunKind = defineSearchAttributeKey('RunKind', SearchAttributeType.KEYWORD);
/** A commit's state, kept current by the commit workflow: `CommitState = "awaiting_approval"` finds the pending ones. */
export const CommitState = defineSearchAttributeKey('CommitState', SearchAttributeType.KEYWORD);
export const CollectionId = defineSearchAttributeKey('CollectionId', SearchAttributeType.KEYWORD);

/** The tool (or lifecycle hook) an external tool call runs; ArtifactId names the server. */
export const McpTool = defineSearchAttributeKey('McpTool', SearchAttributeType.KEYWORD);

/** An invocation's agent (`dedupe`, `llm`, …; `transform` for a transform run) and mode (`preview` or `apply`). */
export const AgentName = defineSearchAttributeKey('AgentName', SearchAttributeType.KEYWORD);
export const InvocationMode = defineSearchAttributeKey('InvocationMode', SearchAttributeType.KEYWORD);

/** A Tier 3 subscription's delivery state (`active` or `paused`): `SubscriptionState = "paused"` finds the ones waiting for a resume. */
export const SubscriptionState = defineSearchAttributeKey('SubscriptionState', SearchAttributeType.KEYWORD);

export const customSearchAttributes = [
  WorkspaceId,
  ArtifactId,
  PrincipalId,
  RunKind,
  CommitState,
  CollectionId,
  McpTool,
  AgentName,
  InvocationMode,
  SubscriptionState,
];

/** What makes an agent run, a transform or one of its steps findable: workspace, target, person, kind, agent, mode. */
export function invocationAttributes(a: {
  workspaceId: string;
  artifactId: string;
  principalId: string;
  runKind: string;
  agent: string;
  mode: string;
}): SearchAttributePair[] {
  return [
    { key: WorkspaceId, value: a.workspaceId },
    { key: ArtifactId, value: a.artifactId },
    { key: PrincipalId, value: a.principalId },
    { key: RunKind, value: a.runKind },
    { key: AgentName, value: a.agent },
    { key: InvocationMode, value: a.mode },
  ];
}
