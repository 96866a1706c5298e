// Which resources a listen request may follow: the collections and workspaces the caller reads, named
// by the URIs resources/read answers for. Anything else is refused before the stream opens, with
// the answer resources/read gives (one answer for "no such" and "not yours": no existence oracle).
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { OperationContext } from '../../operations/services.js';
import type { ContainerKind } from '../../store/containers.js';
import { isStorageUnavailable, withDeadline } from '../../store/deadline.js';
import { watchTiming } from './watch.js';

export interface Target {
  /** As the client wrote it: notifications carry it back exactly. */
  uri: string;
  kind: ContainerKind;
  id: string;
}

/** At most this many resources per stream: each is a watch and an access check. */
export const maxTargets = 50;

const containerUri = /^platform:\/\/(collections|workspaces)\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A resource that does not exist or is not visible: as resources/read answers it (-32602 with the URI, 2026-07-28's code). */
const notFound = (uri: string): RpcError => ({
  code: ProtocolErrorCode.InvalidParams,
  message: `Resource ${uri} not found: only platform://collections/{id} and platform://workspaces/{id} you can read can be followed.`,
  data: { uri },
});

/** The followed containers, or the error the request is refused with. */
export async function admitTargets(ctx: OperationContext, uris: readonly string[]): Promise<{ targets: Target[] } | { error: RpcError }> {
  const unique = [...new Set(uris)];
  if (unique.length > maxTargets)
    return { error: { code: ProtocolErrorCode.InvalidParams, message: `At most ${maxTargets} resources can be followed on one stream.` } };
  if (unique.length > 0 && !ctx.state.principal.scopes.allows('artifact:read'))
    return { error: { code: ProtocolErrorCode.InvalidRequest, message: 'Following a resource needs the artifact:read scope.' } };
  const targets: Target[] = [];
  for (const uri of unique) {
    const match = containerUri.exec(uri);
    if (!match) return { error: notFound(uri) };
    const kind: ContainerKind = match[1] === 'collections' ? 'collection' : 'workspace';
    const id = match[2]!;
    try {
      const doc = await withDeadline(
        'listen admission',
        ctx.services.containers.get(kind, ctx.state.principal, id),
        watchTiming.storeDeadlineMs,
      );
      if (!doc) return { error: notFound(uri) };
    } catch (err) {
      if (!isStorageUnavailable(err)) throw err;
      return { error: { code: ProtocolErrorCode.InternalError, message: 'Storage did not answer: listen again shortly.' } };
    }
    targets.push({ uri, kind, id });
  }
  return { targets };
}
