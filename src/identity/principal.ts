import { z } from 'zod';
import { uuid } from '../kernel/json/schemas.js';
import { scopes, type Scope } from '../kernel/scopes.js';

/** Scopes of SPEC §2.8 (kept in kernel/scopes.ts, which the console shares). */
export { scopes, type Scope };

const fineKinds = ['resource', 'tool', 'prompt'] as const;
const fineActions = { read: 'artifact:read', write: 'artifact:write', manage: 'artifact:manage', invoke: 'artifact:invoke' } as const;
type FineAction = keyof typeof fineActions;

/** `resource|tool|prompt : mime : action`, e.g. `resource:text/*:read` (SPEC §2.8). */
export interface FineScope {
  kind: (typeof fineKinds)[number];
  mime: string;
  action: FineAction;
}

const finePattern =
  /^(resource|tool|prompt):([a-z0-9*][a-z0-9!#$&^_.+*-]*(?:\/[a-z0-9*][a-z0-9!#$&^_.+*-]*)?):(read|write|manage|invoke)$/i;

export function parseFineScope(value: string): FineScope | null {
  const m = finePattern.exec(value.replace(/\s+/g, ''));
  return m
    ? { kind: m[1]!.toLowerCase() as FineScope['kind'], mime: m[2]!.toLowerCase(), action: m[3]!.toLowerCase() as FineAction }
    : null;
}

/** A scope string as credentials declare it: one of §2.8, or the fine-grained form. */
export const scopeString = z.string().refine((s) => (scopes as readonly string[]).includes(s) || parseFineScope(s) !== null, {
  error: `must be one of ${scopes.join(', ')}, or resource|tool|prompt:<mime>:<read|write|manage|invoke>`,
});

/** Whether a content type matches a pattern: an exact type, `type/*`, or `*`. Parameters are ignored. */
export function mimeMatches(pattern: string, contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const p = pattern.toLowerCase();
  if (p === '*' || p === '*/*') return true;
  return p.endsWith('/*') ? type.startsWith(p.slice(0, -1)) : type === p;
}

/** What a principal may do: coarse scopes, plus fine scopes limited to content types. */
export class ScopeSet {
  readonly coarse: ReadonlySet<Scope>;
  readonly fine: readonly FineScope[];

  constructor(values: readonly string[]) {
    this.coarse = new Set(values.filter((v): v is Scope => (scopes as readonly string[]).includes(v)));
    this.fine = values.map(parseFineScope).filter((f): f is FineScope => f !== null);
  }

  static all(): ScopeSet {
    return new ScopeSet(scopes);
  }

  /** Whether the scope is held at all, for some content type at least (the route-level check). */
  allows(scope: Scope): boolean {
    return this.coarse.has(scope) || this.fine.some((f) => fineActions[f.action] === scope);
  }

  /** Whether the scope is held for artifacts of this content type. Artifact routes use `resource` scopes, invocation `tool`/`prompt`. */
  allowsType(scope: Scope, contentType: string, kinds: FineScope['kind'][] = ['resource']): boolean {
    if (this.coarse.has(scope)) return true;
    return this.fine.some((f) => fineActions[f.action] === scope && kinds.includes(f.kind) && mimeMatches(f.mime, contentType));
  }

  /** Content-type patterns the scope is limited to, or null when held for every type. */
  typeLimits(scope: Scope, kinds: FineScope['kind'][] = ['resource']): string[] | null {
    if (this.coarse.has(scope)) return null;
    return this.fine.filter((f) => fineActions[f.action] === scope && kinds.includes(f.kind)).map((f) => f.mime);
  }

  toJSON(): string[] {
    return [...this.coarse, ...this.fine.map((f) => `${f.kind}:${f.mime}:${f.action}`)];
  }
}

/** The scopes a credential is granted, normalised (fine scopes lower-cased, duplicates dropped). */
export const scopeList = z
  .array(scopeString)
  .min(1, 'must grant at least one scope')
  .max(50)
  .transform((values) => [...new Set(new ScopeSet(values).toJSON())]);

/** `workspaces` and `collections`, each `*` or a list of ids (SPEC §2.6). */
export const resourceFiltersSchema = z.strictObject({
  workspaces: z.union([z.literal('*'), z.array(uuid()).max(1000)]).default('*'),
  collections: z.union([z.literal('*'), z.array(uuid()).max(1000)]).default('*'),
});
export type ResourceFilters = z.infer<typeof resourceFiltersSchema>;
export const unfiltered: ResourceFilters = { workspaces: '*', collections: '*' };

/** Who authenticated: a person, a server credential, an API key, or an OAuth client a person authorized. */
export type ActorKind = 'user' | 'server_credential' | 'api_key' | 'oauth_client';

/**
 * Who is asking, resolved once per request by the bearer middleware. Every route and store query
 * decides access from this alone (DESIGN principle 4).
 */
export interface Principal {
  /** The authenticated party: a user, or a credential (server credential client_id, API key id). */
  actor: { kind: ActorKind; id: string };
  /**
   * The person whose grants apply and who owns what gets created: the user; a credential's creator;
   * or the person named by X-On-Behalf-Of.
   */
  subject: string;
  /** True when the subject came from X-On-Behalf-Of. */
  onBehalfOf: boolean;
  scopes: ScopeSet;
  filters: ResourceFilters;
  /** Only a human administrator's own token. */
  isAdmin: boolean;
  /**
   * Set when the person signed in through the platform's own console (a `console` token): its OAuth
   * client id and the token family (the console session). Calls to first-party servers it makes for a
   * hosted viewer carry a delegation token (identity/delegation.ts). Never part of a snapshot.
   */
  console?: { clientId: string; family?: string };
}

export function userPrincipal(subject: string, isAdmin: boolean): Principal {
  return { actor: { kind: 'user', id: subject }, subject, onBehalfOf: false, scopes: ScopeSet.all(), filters: unfiltered, isAdmin };
}

export const isHuman = (p: Principal) => p.actor.kind === 'user';

/** A principal as a workflow carries it (plain JSON, no secret): who asked, with which scopes and filters. */
export interface PrincipalSnapshot {
  actor: Principal['actor'];
  subject: string;
  onBehalfOf: boolean;
  scopes: string[];
  filters: ResourceFilters;
  isAdmin: boolean;
}

export const snapshotOf = (p: Principal): PrincipalSnapshot => ({
  actor: p.actor,
  subject: p.subject,
  onBehalfOf: p.onBehalfOf,
  scopes: p.scopes.toJSON(),
  filters: p.filters,
  isAdmin: p.isAdmin,
});

export const principalOf = (s: PrincipalSnapshot): Principal => ({ ...s, scopes: new ScopeSet(s.scopes) });
