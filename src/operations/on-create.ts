import { v7 as uuidv7 } from 'uuid';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { lifecycleServer } from '../mcp-client/lifecycle.js';
import { Problem } from '../kernel/errors/problem.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { ContainerDoc } from '../store/containers.js';
import { invocationWorkflowId } from '../workflows/contracts/ids.js';
import type { OperationContext } from './services.js';

// SPEC §4.6 on_create, "validate, enrich, set defaults" (issue #37): called before an artifact of a
// type a workspace server defines is written, so that the server may refuse it. docs/decisions.md.

/** The artifact as it is about to be written: what on_create receives, with the id it will have. */
export interface NewArtifactCandidate {
  id: string;
  title: string;
  content_type: string;
  content: string;
  context: Record<string, unknown>;
  collection_id: string;
}

/** What the type server said: the context to merge into the new artifact, and the run that said it. */
export interface OnCreateVerdict {
  invocationId: string;
  serverId: string;
  context: Record<string, unknown> | null;
}

/** The most of a server's reason a refusal repeats: a reason is the server's text, and may be anything. */
export const maxReasonChars = 1000;

export const rejectedByTypeServer = (serverId: string, reason: string) =>
  new Problem(400, 'rejected-by-type-server', 'Rejected by the type server', reason, { server_id: serverId });

export const typeServerUnavailable = (serverId: string, why: string, retryAfter: number) =>
  new Problem(
    503,
    'type-server-unavailable',
    'The type server did not answer',
    `The server that defines this content type (${serverId}) must accept a new artifact of it (on_create), and ${why}. Nothing was stored; try again.`,
    { server_id: serverId, retry_after: retryAfter },
    { 'Retry-After': String(retryAfter) },
  );

/** The server's reason as a refusal shows it: one line of text, control characters out, bounded. */
export function reasonText(raw: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = raw.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  if (!flat) return 'The type server refused the artifact and gave no reason.';
  return flat.length > maxReasonChars ? `${flat.slice(0, maxReasonChars - 1)}…` : flat;
}

const failureKinds = new Set([
  'http_status',
  'timeout',
  'protocol',
  'unavailable',
  'refused',
  'discovery',
  'configuration',
  'relay_offline',
  'relay_lost',
]);

/** A result the platform made because the call failed (src/mcp-client/failure.ts), not the server's own answer. */
function callFailure(result: CallToolResult): string | null {
  const s = result.structuredContent as { error?: unknown; attempts?: unknown; message?: unknown } | undefined;
  if (!result.isError || !s || typeof s.error !== 'string' || !failureKinds.has(s.error) || typeof s.attempts !== 'number') return null;
  return typeof s.message === 'string' ? s.message : s.error;
}

const textOf = (result: CallToolResult) =>
  (result.content ?? []).flatMap((c) => (c.type === 'text' && typeof c.text === 'string' ? [c.text] : [])).join('\n');

/**
 * The server's answer as a verdict. A refusal is `isError: true` (its text is the reason), or a result
 * whose `structuredContent` says `valid: false` (with `reason`, else the text). Anything else accepts,
 * and its `structuredContent.context` (an object) enriches the artifact.
 */
export function verdictOf(result: CallToolResult): { refused: string } | { context: Record<string, unknown> | null } {
  const s = (result.structuredContent ?? {}) as { valid?: unknown; reason?: unknown; context?: unknown };
  if (result.isError) return { refused: reasonText(textOf(result) || (typeof s.reason === 'string' ? s.reason : '')) };
  if (s.valid === false) return { refused: reasonText(typeof s.reason === 'string' ? s.reason : textOf(result)) };
  const context = s.context && typeof s.context === 'object' && !Array.isArray(s.context) ? (s.context as Record<string, unknown>) : null;
  return { context };
}

/**
 * Asks the type's server (the workspace's healthy server that defines the type and lists on_create)
 * whether the artifact may be created, within ON_CREATE_TIMEOUT_SECONDS. Null when there is none: the
 * hook is skipped silently (§4.6). Throws 400 `rejected-by-type-server` when it refuses, and 503
 * `type-server-unavailable` when it does not answer in time or the call fails: nothing is written then.
 */
export async function onCreateVerdict(
  ctx: OperationContext,
  container: ContainerDoc,
  candidate: NewArtifactCandidate,
): Promise<OnCreateVerdict | null> {
  if (container.kind !== 'workspace') return null;
  const { mcpCatalog, toolCallWorkflows, config } = ctx.services;
  const serverId = await lifecycleServer(mcpCatalog, container._id, candidate.content_type, 'on_create');
  if (!serverId) return null;
  const invocationId = uuidv7();
  const deadlineMs = config.ON_CREATE_TIMEOUT_SECONDS * 1000;
  const workflowId = invocationWorkflowId(invocationId);
  await toolCallWorkflows.start(workflowId, {
    invocationId,
    serverId,
    workspaceId: container._id,
    principalId: ctx.state.principal.subject,
    operation: { kind: 'call_tool', name: 'on_create', arguments: { artifact: candidate }, timeoutMs: deadlineMs, maxTotalMs: deadlineMs },
    lifecycle: { tool: 'on_create', artifactId: candidate.id, beforeWrite: true },
  });
  // A little past the call's own bound: the run answers its failure itself when it can.
  const outcome = await toolCallWorkflows.wait(workflowId, deadlineMs + 5_000);
  const retryAfter = Math.min(60, config.ON_CREATE_TIMEOUT_SECONDS);
  if (!outcome || outcome.kind !== 'tool_result')
    throw typeServerUnavailable(serverId, `it did not answer within ${config.ON_CREATE_TIMEOUT_SECONDS} s`, retryAfter);
  const failed = callFailure(outcome.result);
  if (failed) throw typeServerUnavailable(serverId, `the call failed: ${reasonText(failed)}`, retryAfter);
  const verdict = verdictOf(outcome.result);
  if ('refused' in verdict) throw rejectedByTypeServer(serverId, verdict.refused);
  return { invocationId, serverId, context: verdict.context };
}

/**
 * The accepted server's `context` on the new artifact, as a revision of its own that names the run
 * (as the enrichment has always been: docs/decisions.md, issue #30); the artifact as it is then.
 * `after`: what follows an API write (search, the event).
 */
export async function enrichCreated(
  ctx: OperationContext,
  doc: ArtifactDoc,
  verdict: OnCreateVerdict | null,
  after: (doc: ArtifactDoc, changed: string[]) => Promise<void>,
): Promise<ArtifactDoc> {
  if (!verdict?.context) return doc;
  const merged = await ctx.services.artifacts.mergeContext(doc._id, verdict.context, { invocationId: verdict.invocationId });
  if (!merged?.revised) return merged?.doc ?? doc;
  await after(merged.doc, ['context']);
  return merged.doc;
}
