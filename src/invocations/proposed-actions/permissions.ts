import { grantsOf, flagNames, type GrantFlag } from '../../identity/grants.js';
import type { Principal, Scope } from '../../identity/principal.js';
import type { ContainerDoc } from '../../store/containers.js';
import type { ActionKind } from './schema.js';

/** What applying each kind of action takes: a scope for the artifact's type, and a grant on the workspace. */
export const actionNeeds: Record<ActionKind, { scope: Scope; flag: GrantFlag } | null> = {
  create: { scope: 'artifact:write', flag: 'C' },
  update: { scope: 'artifact:write', flag: 'U' },
  delete: { scope: 'artifact:manage', flag: 'D' },
  log: null,
};

/** Why the principal may not apply an action of this kind to this type in the workspace, or null when it may. */
export function missingPermission(principal: Principal, workspace: ContainerDoc, kind: ActionKind, contentType: string): string | null {
  const needs = actionNeeds[kind];
  if (!needs) return null;
  if (!principal.scopes.allowsType(needs.scope, contentType)) return `needs the ${needs.scope} scope (for ${contentType})`;
  if (!grantsOf(workspace, principal.subject).has(needs.flag))
    return `needs the ${needs.flag} (${flagNames[needs.flag]}) grant on workspace ${workspace._id}`;
  return null;
}
