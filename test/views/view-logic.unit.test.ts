// A view's filter on one artifact, and the merge of its sources' rows (issue #36): pure logic, no store.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { viewMatcher, tagsOf } from '../../src/artifacts/view-filter.js';
import { viewContent } from '../../src/artifacts/content-types/view.js';
import { mergeSources } from '../../src/operations/views.js';
import type { ArtifactDoc } from '../../src/store/artifact-doc.js';

const ws = '0190c1d2-7a4b-7c3d-8e9f-0a1b2c3d4e5f';
let n = 0;
function doc(fields: Partial<ArtifactDoc> & { at?: number } = {}): ArtifactDoc {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, fields.at ?? n));
  n++;
  return {
    _id: `id-${String(n).padStart(4, '0')}`,
    title: `t${n}`,
    content_type: 'text/markdown',
    content: '',
    context: {},
    collection_id: ws,
    container_kind: 'workspace',
    order_key: `k${String(n).padStart(4, '0')}`,
    revision: 1,
    provenance: { created_by: 'p', created_at: at, updated_by: 'p', updated_at: at, source: { kind: 'api' } },
    ...fields,
  };
}
const filterOf = (filter: object) => viewContent.parse({ sources: { workspaces: [ws] }, filter }).filter;

describe('viewMatcher', () => {
  it('keeps what every part of the filter keeps, never an archived draft', () => {
    const keep = viewMatcher(filterOf({ content_types: ['text/*'], tags: ['a', 'b'], context: { n: 2, ok: true, s: 'x' } }), null);
    const good = doc({ context: { tags: ['b', 'a', 'c'], n: 2, ok: true, s: 'x' } });
    assert.equal(keep(good), true);
    assert.equal(keep({ ...good, archived_at: new Date() }), false);
    assert.equal(keep({ ...good, content_type: 'image/png' }), false);
    assert.equal(keep({ ...good, content_type: 'text/plain; charset=utf-8' }), true);
    assert.equal(keep({ ...good, context: { ...good.context, tags: ['a'] } }), false);
    assert.equal(keep({ ...good, context: { ...good.context, n: '2' } }), false, 'the number, not the string');
    assert.equal(keep({ ...good, context: { tags: ['a', 'b'], ok: true, s: 'x' } }), false, 'a missing field');
  });

  it('applies the caller type scopes, and reads a lone tag string as one tag', () => {
    const keep = viewMatcher(filterOf({ tags: ['solo'] }), ['image/*']);
    assert.equal(keep(doc({ content_type: 'image/png', context: { tags: 'solo' } })), true);
    assert.equal(keep(doc({ content_type: 'text/plain', context: { tags: 'solo' } })), false);
    assert.deepEqual(tagsOf({ tags: ['x', 1, null, 'y'] }), ['x', 'y']);
    assert.deepEqual(tagsOf({ tags: { a: 'x' } }), []);
  });

  it('never reads an inherited property as a context field', () => {
    const keep = viewMatcher({ context: { toString: 'x' } } as never, null);
    assert.equal(keep(doc()), false);
  });
});

describe('mergeSources', () => {
  const a = [doc({ at: 50 }), doc({ at: 30 }), doc({ at: 10 })];
  const b = [doc({ at: 40, collection_id: 'b' }), doc({ at: 20, collection_id: 'b' })];

  it('merges by the order and says when more match than the limit', () => {
    const merged = mergeSources(
      'updated_desc',
      [
        { rows: a, cutAt: null },
        { rows: b, cutAt: null },
      ],
      4,
    );
    assert.deepEqual(
      merged.rows.map((d) => d.provenance.updated_at.getUTCSeconds()),
      [50, 40, 30, 20],
    );
    assert.equal(merged.more, true);
    assert.equal(mergeSources('updated_desc', [{ rows: a, cutAt: null }], 3).more, false);
  });

  it('lists nothing past the point where a source read only part of itself', () => {
    // Source b was read down to the row at 35 s: its unread rows may be newer than a's at 30 and 10.
    const cutAt = doc({ at: 35, collection_id: 'b' });
    const merged = mergeSources(
      'updated_desc',
      [
        { rows: a, cutAt: null },
        { rows: [b[0]!], cutAt },
      ],
      10,
    );
    assert.deepEqual(
      merged.rows.map((d) => d.provenance.updated_at.getUTCSeconds()),
      [50, 40],
    );
    assert.equal(merged.more, true);
  });

  it('in position order, lists the sources one after the other, stopping after a source read in part', () => {
    const whole = mergeSources(
      'position',
      [
        { rows: b, cutAt: null },
        { rows: a, cutAt: null },
      ],
      10,
    );
    assert.deepEqual(whole.rows, [...b, ...a]);
    const cut = mergeSources(
      'position',
      [
        { rows: b, cutAt: b[1]! },
        { rows: a, cutAt: null },
      ],
      10,
    );
    assert.deepEqual(cut.rows, b);
    assert.equal(cut.more, true);
  });
});
