// The coarse scopes of SPEC §2.8 (and `events:subscribe`, docs/decisions.md): the one list the API
// checks (identity/principal.ts re-exports it) and the console offers (web/console/settings-scopes.ts).
// It imports nothing, so the console's bundle takes it as it is.

/** Scopes of SPEC §2.8. A human user's own token carries all of them. */
export const scopes = [
  'artifact:read',
  'artifact:write',
  'artifact:manage',
  'artifact:invoke',
  'search:read',
  'stream:read',
  'stream:ingest',
  'events:subscribe',
] as const;
export type Scope = (typeof scopes)[number];
