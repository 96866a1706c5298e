import type { z } from 'zod';
import type { Scope, ScopeSet } from '../identity/principal.js';
import type { OperationContext } from '../operations/services.js';

/** One tool of the platform's own MCP server: what it needs, takes, answers and runs. */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  /** The scope a caller needs, declared like a REST route's access. */
  access: Scope;
  /** Scopes what the tool runs needs besides `access` (search reads the artifacts it ranks). */
  alsoNeeds?: Scope[];
  input: z.ZodObject;
  /** The shape of `structuredContent`: an object at its root, as MCP requires of an output schema. */
  output: z.ZodObject;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  icon: string;
  run: (ctx: OperationContext, input: never) => Promise<unknown>;
}

/**
 * The first scope the tool needs that `scopes` lack, or undefined when they allow it: tools/list shows
 * a tool only to those it allows, and a call by anyone else is refused (api/routes/mcp.ts).
 */
export function missingScope(scopes: ScopeSet, tool: ToolDef): Scope | undefined {
  return [tool.access, ...(tool.alsoNeeds ?? [])].find((scope) => !scopes.allows(scope));
}

export const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
export const writes = (destructive: boolean, idempotent: boolean) =>
  ({ readOnlyHint: false, destructiveHint: destructive, idempotentHint: idempotent, openWorldHint: false }) as const;
