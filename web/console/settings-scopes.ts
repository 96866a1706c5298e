// The scopes a key or a server credential may hold, as the settings forms offer them: the API's own
// list (src/kernel/scopes.ts), each with what it grants in a few words. A scope the API gains and this
// page does not describe fails the typecheck, so the forms never lack one.
import { scopes, type Scope } from '../../src/kernel/scopes.js';

const grants: Record<Scope, string> = {
  'artifact:read': 'read artifacts',
  'artifact:write': 'create and edit drafts',
  'artifact:manage': 'archive, revert and delete',
  'artifact:invoke': 'invoke tools and agents',
  'search:read': 'search',
  'stream:read': 'read streams',
  'stream:ingest': 'write to streams',
  'events:subscribe': 'subscribe to workspace events (webhooks)',
};

/** Every coarse scope, in the API's order, with what it grants. */
export const offeredScopes: readonly (readonly [Scope, string])[] = scopes.map((scope) => [scope, grants[scope]] as const);
