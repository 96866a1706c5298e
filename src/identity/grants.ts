import { z } from 'zod';
import { problems } from '../kernel/errors/problem.js';
import type { Principal } from './principal.js';

/**
 * The 9-flag CRUDEASIO grant model for sharing workspaces and collections (docs/decisions.md):
 * C create (add artifacts, commit into), R read, U update (artifacts and metadata), D delete artifacts,
 * E export (copy out, import elsewhere), A administer grants, S search, I invoke what is inside,
 * O own (every flag).
 */
export const grantFlags = ['C', 'R', 'U', 'D', 'E', 'A', 'S', 'I', 'O'] as const;
export type GrantFlag = (typeof grantFlags)[number];

export const flagNames: Record<GrantFlag, string> = {
  C: 'create',
  R: 'read',
  U: 'update',
  D: 'delete',
  E: 'export',
  A: 'administer grants',
  S: 'search',
  I: 'invoke',
  O: 'own',
};

/** Flags as a string like "RS", in any order; stored in canonical CRUDEASIO order. R is implied by any grant. */
export const flagsSchema = z
  .string()
  .regex(/^[CRUDEASIO]+$/, 'must be letters of CRUDEASIO')
  .transform((s) => grantFlags.filter((f) => s.includes(f) || f === 'R').join(''));

export interface Share {
  person_id: string;
  flags: string;
}

export interface Shareable {
  owner_id: string;
  shares?: Share[];
}

export function grantsOf(container: Shareable, person: string): Set<GrantFlag> {
  if (container.owner_id === person) return new Set(grantFlags);
  const flags = container.shares?.find((s) => s.person_id === person)?.flags ?? '';
  return flags.includes('O') ? new Set(grantFlags) : new Set([...flags] as GrantFlag[]);
}

/** 403 when the principal's person lacks the flag on a container they can see (§7.4). */
export function requireGrant(container: Shareable & { _id: string; kind: string }, principal: Principal, flag: GrantFlag): void {
  if (!grantsOf(container, principal.subject).has(flag)) {
    throw problems.forbidden(`You need to own ${container.kind} ${container._id} or hold its ${flag} (${flagNames[flag]}) grant.`);
  }
}
