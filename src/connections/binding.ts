import type { ArtifactDoc } from '../store/artifacts.js';
import { identifies } from './discovery.js';

/**
 * Where a call's token would go: the MCP endpoint, or, for a server registered by its discovery
 * document, only the document's origin (the endpoint is read when the session opens, and session.ts
 * sends credentials only to an endpoint on that origin).
 */
export type CallTarget = { endpoint: URL } | { origin: string } | null;

/**
 * The protected resources (RFC 8707, RFC 9728) an authorizer's tokens are issued for: the resource
 * its discovery recorded (`context.discovered.resource`) and the `resource` parameter of its auth_url.
 * Read leniently: a value that is not there binds nothing, and an authorizer with neither is unbound.
 */
export function boundResources(doc: ArtifactDoc | null): string[] {
  if (!doc) return [];
  const found = new Set<string>();
  const discovered = (doc.context?.discovered as { resource?: unknown } | undefined)?.resource;
  if (typeof discovered === 'string' && discovered) found.add(discovered);
  try {
    const inUrl = new URL((JSON.parse(doc.content) as { auth_url?: string }).auth_url ?? '').searchParams.get('resource');
    if (inUrl) found.add(inUrl);
  } catch {
    // Not a URL: nothing bound by it (the authorizer's own checks refuse it elsewhere).
  }
  return [...found];
}

/**
 * Whether every resource the tokens are for identifies where the call goes (discovery's own check).
 * A token issued for one server must never reach another: whoever may edit a server's URL, or point
 * another server at the authorizer, would otherwise receive each connected person's token.
 */
export function targetIsBound(resources: readonly string[], target: CallTarget): boolean {
  if (!resources.length) return true;
  if (!target) return false;
  return resources.every((resource) => {
    if ('endpoint' in target) return identifies(resource, target.endpoint);
    try {
      return new URL(resource).origin === target.origin;
    } catch {
      return false;
    }
  });
}

/** The target as the message names it. */
export const targetName = (target: CallTarget): string =>
  !target ? 'a server that is not called over http' : 'endpoint' in target ? target.endpoint.href : target.origin;
