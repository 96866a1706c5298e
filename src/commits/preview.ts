import { createTwoFilesPatch } from 'diff';
import { v5 as uuidv5 } from 'uuid';
import { isDeepStrictEqual } from 'node:util';
import { validateContent } from '../artifacts/content-types/index.js';
import { Problem } from '../kernel/errors/problem.js';
import type { StdioServers } from '../stdio-servers/index.js';
import type { ArtifactDoc } from '../store/artifacts.js';

/** Namespace of collection artifact ids derived from (draft, collection). */
const lineageNamespace = '3b0c8f5e-2d7a-4c1b-9e6f-8a4d2c1b0e7f';

/**
 * The collection artifact a draft becomes in a collection: the same id every time it is committed
 * there, so each commit adds a version to it rather than a new artifact, and a retried apply finds it.
 */
export const collectionArtifactId = (draftId: string, collectionId: string) => uuidv5(`${draftId}:${collectionId}`, lineageNamespace);

export const versionedFields = ['title', 'content_type', 'content', 'context'] as const;
export type VersionedField = (typeof versionedFields)[number];

export type ItemStatus = 'new' | 'modified' | 'unchanged';

/** Only so much diff per artifact goes into a preview; the rest is cut and flagged. */
export const maxDiffChars = 16_000;

/** What committing one draft would do. */
export interface PreviewItem {
  source_artifact_id: string;
  /** The draft revision this preview read. */
  source_revision: number;
  artifact_id: string;
  title: string;
  content_type: string;
  status: ItemStatus;
  /** The version the draft becomes (new, modified) or already is (unchanged). */
  version: number;
  current_version: number | null;
  changed_fields: VersionedField[];
  /** Before and after of the small fields that changed. */
  changes: Partial<Record<Exclude<VersionedField, 'content'>, { from: unknown; to: unknown }>>;
  /** Unified diff of the content (`diff` package), when the content changed or is new. */
  content_diff?: string;
  content_diff_truncated?: boolean;
}

/** A diff that would take longer than this is given up (pathological inputs): the preview says so. */
const diffTimeoutMs = 500;

/** A unified diff of `before` → `after`, cut at maxDiffChars (also used for an invocation's proposed updates). */
export function unifiedDiff(title: string, before: string, after: string): { content_diff: string; content_diff_truncated?: boolean } {
  const patch = createTwoFilesPatch(`a/${title}`, `b/${title}`, before, after, undefined, undefined, {
    context: 3,
    timeout: diffTimeoutMs,
  });
  if (patch === undefined)
    return { content_diff: `The content changed too much to diff within ${diffTimeoutMs} ms.`, content_diff_truncated: true };
  return patch.length > maxDiffChars
    ? { content_diff: patch.slice(0, maxDiffChars), content_diff_truncated: true }
    : { content_diff: patch };
}

/** Compares a draft with the collection artifact it would update (null: none yet). */
export function previewItem(draft: ArtifactDoc, collectionId: string, head: ArtifactDoc | null, options: { diff: boolean }): PreviewItem {
  const changed = head ? versionedFields.filter((f) => !isDeepStrictEqual(draft[f], head[f])) : [...versionedFields];
  const status: ItemStatus = !head ? 'new' : changed.length ? 'modified' : 'unchanged';
  const current = head ? (head.version ?? head.revision) : null;
  const changes: PreviewItem['changes'] = {};
  if (head) for (const f of changed) if (f !== 'content') changes[f] = { from: head[f], to: draft[f] };
  return {
    source_artifact_id: draft._id,
    source_revision: draft.revision,
    artifact_id: collectionArtifactId(draft._id, collectionId),
    title: draft.title,
    content_type: draft.content_type,
    status,
    version: status === 'unchanged' ? current! : (current ?? 0) + 1,
    current_version: current,
    changed_fields: status === 'new' ? [] : changed,
    changes,
    ...(options.diff && changed.includes('content') ? unifiedDiff(draft.title, head?.content ?? '', draft.content) : {}),
  };
}

export interface PreviewCounts {
  new: number;
  modified: number;
  unchanged: number;
}

export function countsOf(items: Pick<PreviewItem, 'status'>[]): PreviewCounts {
  const counts: PreviewCounts = { new: 0, modified: 0, unchanged: 0 };
  for (const item of items) counts[item.status]++;
  return counts;
}

/**
 * The preview of committing these drafts into a collection. `heads` looks up the collection
 * artifacts by id (one query for all of them).
 */
export async function previewDrafts(
  drafts: ArtifactDoc[],
  collectionId: string,
  heads: (ids: string[]) => Promise<ArtifactDoc[]>,
  options: { diff: boolean },
): Promise<PreviewItem[]> {
  const found = new Map((await heads(drafts.map((d) => collectionArtifactId(d._id, collectionId)))).map((h) => [h._id, h]));
  return drafts.map((d) => previewItem(d, collectionId, found.get(collectionArtifactId(d._id, collectionId)) ?? null, options));
}

/** Why a draft cannot go into a collection (raw secrets in a server artifact, say), or null. */
export function whyNotCommittable(draft: Pick<ArtifactDoc, 'content_type' | 'content'>, stdio: StdioServers): string | null {
  try {
    validateContent(draft.content_type, draft.content, { stdio, inCollection: true });
    return null;
  } catch (err) {
    if (err instanceof Problem) return err.message;
    throw err;
  }
}
