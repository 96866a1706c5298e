// The relay's small pieces (issue #34): reconnection backoff with full jitter and a cap, the scrubbing
// of a call's env values from every text, and the macOS sandbox profile's text (macOS itself is not
// available to this suite: the profile is checked as text only).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay } from '../../src/relay-host/backoff.js';
import { failure } from '../../src/relay-host/calls.js';
import { macosProfile } from '../../src/relay-host/macos-profile.js';
import { scrub, scrubJson } from '../../src/relay-host/scrub.js';

describe('reconnection backoff', () => {
  it('draws uniformly below base·2^attempt (full jitter), so the ceiling grows', () => {
    assert.equal(
      backoffDelay(0, { base: 500, cap: 30_000 }, () => 0.999999),
      499,
    );
    assert.equal(
      backoffDelay(3, { base: 500, cap: 30_000 }, () => 0.999999),
      3999,
    );
    assert.equal(
      backoffDelay(3, { base: 500, cap: 30_000 }, () => 0.5),
      2000,
    );
    assert.equal(
      backoffDelay(3, { base: 500, cap: 30_000 }, () => 0),
      0,
      'full jitter reaches zero',
    );
  });
  it('caps at 15 s however many attempts', () => {
    for (const attempt of [5, 6, 20, 1000])
      assert.equal(
        backoffDelay(attempt, undefined, () => 0.999999),
        14_999,
      );
  });
  it('spreads real draws over the whole range', () => {
    const draws = Array.from({ length: 2000 }, () => backoffDelay(4));
    assert.ok(Math.max(...draws) < 8000 && Math.max(...draws) > 6000, String(Math.max(...draws)));
    assert.ok(Math.min(...draws) < 1000, String(Math.min(...draws)));
  });
});

describe('scrubbing a call env', () => {
  const env = { API_KEY: 'sk-live-abcdef123456', TOKEN: 'tok-xyz-987', SHORT: 'on' };
  it('removes every value from a message, a server stderr tail included', () => {
    const out = failure(new Error('auth failed with sk-live-abcdef123456'), env, true, 'stderr: token tok-xyz-987 rejected');
    assert.equal(out.outcome, 'failure');
    const message = out.outcome === 'failure' ? out.failure.message : '';
    assert.ok(!message.includes('sk-live-abcdef123456') && !message.includes('tok-xyz-987'), message);
    assert.match(message, /\[redacted\]/);
    assert.equal(out.outcome === 'failure' && out.failure.kind, 'start');
  });
  it('removes values nested in a result, and a longer value before a shorter one it contains', () => {
    const result = scrubJson({ content: [{ type: 'text', text: 'echo: sk-live-abcdef123456' }], meta: { k: ['tok-xyz-987'] } }, env);
    assert.ok(!JSON.stringify(result).includes('sk-live') && !JSON.stringify(result).includes('tok-xyz'));
    assert.equal(scrub('aaaa-long and aaaa', ['aaaa', 'aaaa-long']), '[redacted] and [redacted]');
  });
  it('leaves very short values alone (scrubbing "on" would garble every text)', () => {
    assert.equal(scrub('the server is on', env), 'the server is on');
  });
});

describe('the macOS sandbox profile', () => {
  const profile = macosProfile({
    home: '/Users/ann',
    tempDir: '/private/var/folders/x/T/platform-relay-1',
    folders: [
      { path: '/Users/ann/notes', write: false },
      { path: '/Users/ann/out "dir"', write: true },
    ],
    readable: ['/Users/ann/src/relay'],
    network: false,
  });
  it('denies network unless the policy allows it', () => {
    assert.match(profile, /^\(deny network\*\)$/m);
    assert.doesNotMatch(macosProfile({ home: '/Users/ann', tempDir: '/t', folders: [], readable: [], network: true }), /deny network/);
  });
  it('denies writes except the temp folder and writable folders, later rules winning', () => {
    const lines = profile.split('\n');
    const deny = lines.indexOf('(deny file-write*)');
    const allow = lines.findIndex((l) => l.startsWith('(allow file-write*'));
    assert.ok(deny >= 0 && allow > deny);
    assert.match(lines[allow]!, /\(subpath "\/Users\/ann\/out \\"dir\\""\)/, 'quotes escaped');
    assert.match(lines[allow]!, /\(subpath "\/private\/var\/folders\/x\/T\/platform-relay-1"\)/);
    assert.doesNotMatch(lines[allow]!, /\/Users\/ann\/notes/, 'a read-only folder is not writable');
  });
  it('denies reads of the home folder except the exposed folders, and lets lookups stat their parents', () => {
    const lines = profile.split('\n');
    const deny = lines.indexOf('(deny file-read* (subpath "/Users/ann"))');
    const allow = lines.findIndex((l) => l.startsWith('(allow file-read* '));
    assert.ok(deny >= 0 && allow > deny, profile);
    for (const p of ['/Users/ann/notes', '/Users/ann/src/relay']) assert.ok(lines[allow]!.includes(`(subpath "${p}")`), p);
    assert.match(profile, /\(allow file-read-metadata .*\(literal "\/Users\/ann"\).*\(literal "\/Users\/ann\/src"\)/);
    assert.doesNotMatch(profile, /file-read\* \(subpath "\/Users\/ann"\)\)\n\(allow file-read\* \(subpath "\/Users\/ann"\)/);
  });
});
