// The MCP Apps host's sizing rule (web/console/viewer/size.ts), on a clock the test moves: a viewer's
// reports size its frame, but growth that chases the host's own resizes stops after a few steps, and
// resumes only once the viewer has stopped asking. test/web/viewer.test.ts runs it in Chromium.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { echoWindowMs, frameHeights, frameSizer, maxChainedGrowths } from '../../web/console/viewer/size.js';

function sizer() {
  let clock = 0;
  const applied: number[] = [];
  const report = frameSizer(
    (height) => applied.push(height),
    () => clock,
  );
  return { report, applied, advance: (ms: number) => (clock += ms) };
}

describe("the host's frame sizing", () => {
  it('applies reports within 80 to 2,000 px, ignoring repeats and non-numbers', () => {
    const { report, applied, advance } = sizer();
    for (const height of [300, 300, 10, Number.NaN, undefined, '500', 99_999, 1234.2]) {
      report(height);
      advance(2 * echoWindowMs);
    }
    assert.deepEqual(applied, [300, frameHeights.min, frameHeights.max, 1235]);
  });

  it('stops growth that chases its own resizes, and keeps it stopped while the viewer keeps asking', () => {
    const { report, applied, advance } = sizer();
    let frame = frameHeights.initial;
    // A viewer that answers every resize with its frame's height plus 16 px, 20 ms later.
    for (let i = 0; i < 200; i++) {
      report(frame + 16);
      frame = applied.at(-1) ?? frame;
      advance(20);
    }
    assert.equal(applied.length, maxChainedGrowths + 1);
    assert.equal(applied.at(-1), frameHeights.initial + 16 * (maxChainedGrowths + 1));
  });

  it('stops a viewer that asks for more every 30 ms, whatever happens', () => {
    const { report, applied, advance } = sizer();
    for (let i = 1; i <= 1000; i++) {
      report(frameHeights.initial + 20 * i);
      advance(30);
    }
    assert.equal(applied.length, maxChainedGrowths + 1);
    assert.ok(applied.at(-1)! < 500);
  });

  it('lets content that arrives in steps grow the frame, and later growth after a quiet spell', () => {
    const { report, applied, advance } = sizer();
    for (const height of [120, 180, 230, 260]) {
      report(height);
      advance(50);
    }
    assert.deepEqual(applied, [120, 180, 230, 260]);
    advance(5 * echoWindowMs);
    report(400);
    assert.equal(applied.at(-1), 400);
  });

  it('after a loop was stopped, growth resumes once the viewer has asked for none for an echo window', () => {
    const { report, applied, advance } = sizer();
    for (let i = 1; i <= 50; i++) {
      report(frameHeights.initial + 10 * i);
      advance(10);
    }
    const stoppedAt = applied.at(-1)!;
    report(stoppedAt + 500);
    assert.equal(applied.at(-1), stoppedAt, 'still stopped right after');
    advance(echoWindowMs);
    report(stoppedAt + 100);
    assert.equal(applied.at(-1), stoppedAt + 100);
    // Shrinking is always applied.
    report(100);
    assert.equal(applied.at(-1), 100);
  });
});
