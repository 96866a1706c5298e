// A record of a credential's use never holds up or fails what it records (issue #37): a write that
// fails is logged, and one that hangs is given up at its deadline, both without throwing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { recordUse } from '../../src/identity/credentials.js';
import { createLogger } from '../../src/kernel/logging/logger.js';

function logged() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger('info', sink) };
}

describe('recording a use', () => {
  it('waits for a write that answers', async () => {
    const { lines, logger } = logged();
    let written = false;
    await recordUse({ logger }, 'API key k1', async () => {
      await new Promise((r) => setTimeout(r, 20));
      written = true;
    });
    assert.equal(written, true);
    assert.deepEqual(lines, []);
  });

  it('logs a write that fails, without throwing', async () => {
    const { lines, logger } = logged();
    await recordUse({ logger }, 'API key k2', () => Promise.reject(new Error('storage is down')));
    await recordUse({ logger }, 'API key k3', () => {
      throw new Error('refused at once');
    });
    assert.equal(lines.length, 2);
    const [first, second] = lines.map((l) => JSON.parse(l) as { level: number; msg: string; err: { message: string } });
    assert.equal(first!.msg, 'API key k2: its use was not recorded');
    assert.equal(first!.level, 40, 'a warning');
    assert.match(first!.err.message, /storage is down/);
    assert.match(second!.err.message, /refused at once/);
  });

  it('gives up a write that hangs at its deadline', async () => {
    const { lines, logger } = logged();
    const started = Date.now();
    await recordUse({ logger }, 'server credential s1', () => new Promise(() => undefined));
    const took = Date.now() - started;
    assert.ok(took >= 1900 && took < 5000, `gave up after ${took} ms`);
    assert.match(lines[0]!, /server credential s1: its use was not recorded/);
    assert.match(lines[0]!, /did not answer within 2000 ms/);
  });
});
