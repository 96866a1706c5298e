import type { Principal } from '../identity/principal.js';
import type { Services } from './services.js';

/**
 * What an operation needs of its caller: the services, who asks, and the request it belongs to. A
 * REST route's Koa context is one; the MCP endpoint builds one per tool call.
 */
export interface OperationContext {
  services: Services;
  state: { principal?: Principal; requestId: string; channel?: 'api' | 'mcp' };
}
