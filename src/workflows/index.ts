// Every workflow the worker runs. Bundled by @temporalio/worker: deterministic code only.
export { workspaceEvents } from './workspace-events.js';
