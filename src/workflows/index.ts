// Every workflow the worker runs. Bundled by @temporalio/worker: deterministic code only.
export { indexArtifact } from './index-artifact.js';
export { workspaceEvents } from './workspace-events.js';
export { commitWorkspace } from './commit.js';
export { mcpRun } from './mcp.js';
export { agentRun } from './invoke.js';
export { transformRun } from './transform.js';
export { connectionFlow } from './connection.js';
