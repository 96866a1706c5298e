import type { McpServer } from '@modelcontextprotocol/server';

// `subscriptions/listen` (issue #35): resource changes of the collections and workspaces a client
// may read. Being built: until then the server answers it as the SDK does by default.

/** Registers the server's `subscriptions/listen` support. */
export function registerSubscriptions(_server: McpServer): void {}
