/** Scopes of SPEC §2.8. A human user's own token carries all of them. */
export const scopes = [
  'artifact:read',
  'artifact:write',
  'artifact:manage',
  'artifact:invoke',
  'search:read',
  'stream:read',
  'stream:ingest',
] as const;
export type Scope = (typeof scopes)[number];

/**
 * Who is asking, resolved once per request by the bearer middleware. Every route and store query
 * decides access from this alone (DESIGN principle 4).
 */
export interface Principal {
  kind: 'user';
  /** The person's UUID: the JWT `sub`. */
  subject: string;
  scopes: ReadonlySet<Scope>;
  isAdmin: boolean;
}

export function userPrincipal(subject: string, isAdmin: boolean): Principal {
  return { kind: 'user', subject, scopes: new Set(scopes), isAdmin };
}
