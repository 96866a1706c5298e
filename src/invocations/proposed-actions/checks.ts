import { z } from 'zod';
import { baseType, isPlatformType, validateContent, type ContentPolicy } from '../../artifacts/content-types/index.js';
import { Problem } from '../../kernel/errors/problem.js';
import type { ArtifactDoc, ArtifactStore } from '../../store/artifacts.js';
import { actionId, actionKinds, proposedAction, type ProposedAction, type RecordedAction } from './schema.js';

/** Proposals of one invocation take at most this much of its workflow history (docs/decisions.md). */
export const maxProposalBytes = 1_500_000;

function invalid(raw: unknown, index: number, workspaceId: string, reason: string): RecordedAction {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const kind = actionKinds.includes(r.kind as never) ? (r.kind as ProposedAction['kind']) : 'log';
  const target = typeof r.target === 'string' ? r.target.slice(0, 100) : workspaceId;
  return {
    id: actionId(index),
    kind,
    target,
    payload: {},
    rationale: typeof r.rationale === 'string' ? r.rationale.slice(0, 2000) : '',
    status: 'refused',
    reason,
  } as RecordedAction;
}

function contentProblem(contentType: string, content: string, policy: ContentPolicy): string | null {
  try {
    validateContent(contentType, content, policy);
    return null;
  } catch (err) {
    if (err instanceof Problem) return `invalid-content: ${err.message}`;
    throw err;
  }
}

/** Why an action cannot apply in this workspace, or null; `doc` is the current target of an update or delete. */
function refusal(a: ProposedAction, workspaceId: string, doc: ArtifactDoc | null | undefined, policy: ContentPolicy): string | null {
  if (a.kind === 'create' || a.kind === 'log') {
    if (a.target !== workspaceId) return `outside-workspace: the invocation is scoped to workspace ${workspaceId}, not ${a.target}`;
    if (a.kind === 'log') return null;
    if (isPlatformType(a.payload.content_type))
      return `platform-type: agents do not create ${baseType(a.payload.content_type)} artifacts; a person does`;
    return contentProblem(a.payload.content_type, a.payload.content, policy);
  }
  if (!doc) return `not-found: artifact ${a.target} does not exist`;
  if (doc.container_kind !== 'workspace' || doc.collection_id !== workspaceId)
    return `outside-workspace: artifact ${a.target} is not a draft of workspace ${workspaceId}; collections change only through commit`;
  if (isPlatformType(doc.content_type)) return `platform-type: agents do not change ${baseType(doc.content_type)} artifacts`;
  if (a.kind === 'update' && doc.archived_at) return `archived: artifact ${a.target} is archived`;
  if (a.kind === 'update' && a.payload.content !== undefined) return contentProblem(doc.content_type, a.payload.content, policy);
  return null;
}

/**
 * An agent's raw proposals as the invocation records them: each checked against the schema and
 * the invocation's workspace, numbered, and either `proposed` (with the target's revision) or
 * `refused` with the reason. An agent cannot reach past its workspace, or into a collection.
 */
export async function vetProposals(
  raw: readonly unknown[],
  opts: {
    workspaceId: string;
    artifacts: ArtifactStore;
    maxActions: number;
    policy: ContentPolicy;
    /** Artifacts the agent was given, as it read them: a target among them is checked (and based) on that revision, unread again. */
    known?: readonly ArtifactDoc[];
  },
): Promise<RecordedAction[]> {
  const parsed = raw.map((r) => proposedAction.safeParse(r));
  const targets = parsed.flatMap((p) =>
    p.success && (p.data.kind === 'update' || p.data.kind === 'delete') && z.uuid().safeParse(p.data.target).success ? [p.data.target] : [],
  );
  const docs = new Map((opts.known ?? []).map((d) => [d._id, d]));
  const unread = [...new Set(targets)].filter((id) => !docs.has(id));
  if (unread.length) for (const d of await opts.artifacts.currentMany(unread)) docs.set(d._id, d);
  let bytes = 0;
  return parsed.map((p, i) => {
    if (!p.success)
      return invalid(
        raw[i],
        i,
        opts.workspaceId,
        `invalid: ${p.error.issues.map((x) => `${x.path.join('.') || 'action'} ${x.message}`).join('; ')}`,
      );
    if (i >= opts.maxActions)
      return invalid(
        raw[i],
        i,
        opts.workspaceId,
        `too-many-actions: an invocation proposes at most ${opts.maxActions} (INVOKE_MAX_ACTIONS)`,
      );
    bytes += JSON.stringify(p.data).length;
    if (bytes > maxProposalBytes)
      return invalid(raw[i], i, opts.workspaceId, `too-large: an invocation's proposals hold at most ${maxProposalBytes} bytes`);
    const doc = p.data.kind === 'update' || p.data.kind === 'delete' ? (docs.get(p.data.target) ?? null) : undefined;
    const reason = refusal(p.data, opts.workspaceId, doc, opts.policy);
    return {
      ...p.data,
      id: actionId(i),
      ...(reason ? { status: 'refused' as const, reason } : { status: 'proposed' as const }),
      ...(doc ? { base_revision: doc.revision } : {}),
    };
  });
}
