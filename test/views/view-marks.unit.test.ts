// The marks a view's results streams share (issue #36): one read per container per poll for every
// stream of the process, a read in flight shared, and a read that failed never kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ContainerMarks } from '../../src/operations/view-marks.js';

describe('ContainerMarks', () => {
  it('reads a container once per period however many ask, and shares a read in flight', async () => {
    let reads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const marks = new ContainerMarks(
      async (kind, id) => {
        reads++;
        await gate;
        return `${kind}:${id}:${reads}`;
      },
      60_000,
      5000,
    );
    const asked = Array.from({ length: 50 }, () => marks.get('workspace', 'w'));
    release();
    assert.deepEqual(new Set(await Promise.all(asked)), new Set(['workspace:w:1']));
    assert.equal(await marks.get('workspace', 'w'), 'workspace:w:1');
    assert.equal(await marks.get('collection', 'w'), 'collection:w:2', 'a collection is another container');
    assert.equal(reads, 2);
  });

  it('reads again once the period passed', async () => {
    let reads = 0;
    const marks = new ContainerMarks(async () => String(++reads), 20, 5000);
    assert.equal(await marks.get('workspace', 'w'), '1');
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(await marks.get('workspace', 'w'), '2');
  });

  it('drops a read that failed or passed its deadline: the next poll reads again', async () => {
    let calls = 0;
    const marks = new ContainerMarks(
      async () => {
        calls++;
        if (calls === 1) throw new Error('storage down');
        if (calls === 2) return new Promise<string>(() => undefined); // never answers
        return 'ok';
      },
      60_000,
      50,
    );
    await assert.rejects(marks.get('workspace', 'w'), /storage down/);
    await assert.rejects(marks.get('workspace', 'w'), /deadline|did not answer|timed out/i);
    assert.equal(await marks.get('workspace', 'w'), 'ok');
    assert.equal(calls, 3);
  });
});
