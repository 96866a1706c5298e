/**
 * Every workflow id the platform uses, in one place: business ids, never random ones, so a retried
 * request finds the run it started and an operator finds a run in the Temporal UI from the record.
 */

/** A commit's approval workflow (`commitWorkspace`). */
export const commitWorkflowId = (workspaceId: string, commitId: string) => `commit-${workspaceId}-${commitId}`;

/** Every invocation, tool call, agent run or transform, has this id: one namespace for `GET /invocations/{id}`. */
export const invocationWorkflowId = (invocationId: string) => `invoke-${invocationId}`;

/** A registered MCP server's catalog refresh (`mcpRun` with `refresh_catalog`). */
export const catalogWorkflowId = (serverId: string) => `mcp-catalog-${serverId}`;

/** A person's OAuth connection (`connectionFlow`). */
export const connectionWorkflowId = (connectionId: string) => `connection-${connectionId}`;

/** Embedding one revision of an artifact (`indexArtifact`). */
export const indexArtifactWorkflowId = (artifactId: string, revision: number) => `index-artifact-${artifactId}-r${revision}`;

/** The workspace's event log (`workspaceEvents`), one long-lived run per workspace. */
export const eventsWorkflowId = (workspaceId: string) => `workspace-events-${workspaceId}`;

/** A Tier 3 subscription's webhook deliveries (`subscriptionDelivery`), one long-lived run per subscription. */
export const subscriptionWorkflowId = (subscriptionId: string) => `subscription-${subscriptionId}`;

/** A bulk import (issue #33): one run per import. */
export const importWorkflowId = (workspaceId: string, importId: string) => `import-${workspaceId}-${importId}`;
