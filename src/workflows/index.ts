// Every workflow the worker runs. Bundled by @temporalio/worker: deterministic code only.
export { indexArtifact } from './index-artifact.js';
export { workspaceEvents } from './workspace-events.js';
export { commitWorkspace } from './commit-workspace.js';
export { mcpRun } from './mcp-run.js';
export { agentRun } from './agent-run.js';
export { transformRun } from './transform-run.js';
export { connectionFlow } from './connection-flow.js';
