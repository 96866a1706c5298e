import { mcpServerType } from '../artifacts/content-types/index.js';
import { grantsOf } from '../identity/grants.js';
import type { Principal } from '../identity/principal.js';
import type { ContainerDoc } from '../store/containers.js';

/** The principal holds `artifact:invoke` for MCP servers (a `tool:` scope for another type does not do). */
export const invokesServers = (principal: Principal) => principal.scopes.allowsType('artifact:invoke', mcpServerType, ['tool', 'resource']);

/** The principal may call servers of this workspace: `artifact:invoke` for MCP servers, and the I grant. */
export const mayInvokeIn = (principal: Principal, container: ContainerDoc) =>
  invokesServers(principal) && grantsOf(container, principal.subject).has('I');
