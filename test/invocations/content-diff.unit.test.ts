// The content diffs GET /invocations/{id} adds to proposed updates: against the revision proposed on,
// only for drafts of the invocation's workspace that the reader may read, never for refused actions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxDiffChars } from '../../src/commits/preview.js';
import { contentDiffs, type DiffSources } from '../../src/invocations/proposed-actions/diff.js';
import type { RecordedAction } from '../../src/invocations/proposed-actions/schema.js';
import type { ArtifactDoc } from '../../src/store/artifact-doc.js';
import type { RevisionDoc } from '../../src/store/revisions.js';

const ws = '00000000-0000-4000-8000-000000000001';
const draft = (id: string, over: Partial<ArtifactDoc> = {}) =>
  ({
    _id: id,
    title: 'Notes',
    content_type: 'text/plain',
    content: 'one\ntwo\n',
    collection_id: ws,
    container_kind: 'workspace',
    revision: 1,
    ...over,
  }) as ArtifactDoc;
const update = (id: string, target: string, content: string | undefined, over: Partial<RecordedAction> = {}) =>
  ({
    id,
    kind: 'update',
    target,
    payload: content === undefined ? { title: 'x' } : { content },
    rationale: 'r',
    status: 'proposed',
    base_revision: 1,
    ...over,
  }) as RecordedAction;

function sources(docs: ArtifactDoc[], history: Record<string, string> = {}, mayRead: (type: string) => boolean = () => true): DiffSources {
  return {
    workspaceId: ws,
    mayRead,
    getMany: async (ids) => docs.filter((d) => ids.includes(d._id)),
    revisionAt: async (id, n) =>
      history[`${id}:${n}`] === undefined ? null : ({ state: { content: history[`${id}:${n}`] } } as RevisionDoc),
  };
}

describe('content diffs of proposed updates', () => {
  it('diffs the current content when the draft is still at the base revision', async () => {
    const diffs = await contentDiffs([update('a1', 'd1', 'one\n2\n')], sources([draft('d1')]));
    assert.match(diffs.get('a1')!.content_diff, /^-two\n\+2$/m);
  });

  it('diffs the base revision from the history when the draft moved on', async () => {
    const moved = draft('d1', { revision: 3, content: 'changed since\n' });
    const diffs = await contentDiffs([update('a1', 'd1', 'one\n2\n')], sources([moved], { 'd1:1': 'one\ntwo\n' }));
    assert.doesNotMatch(diffs.get('a1')!.content_diff, /changed since/);
    assert.match(diffs.get('a1')!.content_diff, /^-two$/m);
  });

  it('reads nothing for refused actions, other workspaces, collections, unreadable types or title-only updates', async () => {
    const docs = [
      draft('d1'),
      draft('d2', { collection_id: '00000000-0000-4000-8000-000000000002' }),
      draft('d3', { container_kind: 'collection' }),
      draft('d4', { content_type: 'text/secret' }),
    ];
    const diffs = await contentDiffs(
      [
        update('a1', 'd1', 'x\n', { status: 'refused' }),
        update('a2', 'd2', 'x\n'),
        update('a3', 'd3', 'x\n'),
        update('a4', 'd4', 'x\n'),
        update('a5', 'd1', undefined),
        update('a6', 'gone', 'x\n'),
      ],
      sources(docs, {}, (type) => type !== 'text/secret'),
    );
    assert.deepEqual([...diffs.keys()], []);
  });

  it('cuts a long diff like a commit preview', async () => {
    const long = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n');
    const diffs = await contentDiffs([update('a1', 'd1', long)], sources([draft('d1')]));
    assert.equal(diffs.get('a1')!.content_diff.length, maxDiffChars);
    assert.equal(diffs.get('a1')!.content_diff_truncated, true);
  });
});
