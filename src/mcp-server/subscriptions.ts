import type { McpServer } from '@modelcontextprotocol/server';

// `subscriptions/listen` (issue #35, protocol 2026-07-28): `notifications/resources/updated` for the
// collections and workspaces a client may read. Served by `serveListen` (subscriptions/serve.ts),
// which serveMcp hands every 2026 listen request to before the SDK's handler: the SDK's own listen
// router would honour any URI for anyone, from a process-local bus.

export { isListenRequest, serveListen } from './subscriptions/serve.js';

/**
 * Declares resource subscriptions where they can be delivered: on 2026-07-28 (`server/discover`),
 * through `subscriptions/listen`. Not to a 2025 client (`initialize`): this endpoint is stateless, no
 * stream outlives a request (GET is 405), so `resources/subscribe` could never be followed by a
 * notification; it stays unsupported (-32601), as before.
 */
export function registerSubscriptions(server: McpServer, era?: 'modern' | 'legacy'): void {
  if (era === 'modern') server.server.registerCapabilities({ resources: { subscribe: true } });
}
