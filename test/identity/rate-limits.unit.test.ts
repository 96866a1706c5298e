// The pure parts of rate limiting and sign-in throttling: token buckets, client addresses, verdicts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientIp, ipLimitKey } from '../../src/api/client-ip.js';
import { countedFailures, verdict, type SignInPolicy } from '../../src/identity/sign-in-throttle.js';
import { TokenBuckets } from '../../src/rate-limits/token-bucket.js';
import type { SignInEventDoc } from '../../src/store/sign-in-events.js';

describe('token buckets', () => {
  it('spends the quota, refills evenly, and says when the next request comes', () => {
    const buckets = new TokenBuckets('default', 6, 60); // one request every 10 s
    const t0 = 1_000_000;
    const takes = Array.from({ length: 6 }, () => buckets.take('k', t0));
    assert.deepEqual(
      takes.map((t) => t.remaining),
      [5, 4, 3, 2, 1, 0],
    );
    assert.ok(takes.every((t) => t.allowed && t.nextSeconds === 10));
    const refused = buckets.take('k', t0 + 4000);
    assert.deepEqual(refused, { allowed: false, remaining: 0, nextSeconds: 6 });
    assert.equal(buckets.take('k', t0 + 10_000).allowed, true, 'a request comes back after 10 s');
    assert.equal(buckets.take('other', t0).remaining, 5, 'keys are independent');
    assert.equal(buckets.policyHeader(), '"default";q=6;w=60');
    assert.equal(buckets.stateHeader(refused), '"default";r=0;t=6');
  });

  it('forgets buckets that have refilled', () => {
    const buckets = new TokenBuckets('default', 2, 10); // a request back every 5 s
    buckets.take('a', 0);
    buckets.take('b', 9000);
    buckets.take('c', 10_000); // a sweep, a window on: a (full again) goes, b (not yet) stays
    const size = (buckets as unknown as { buckets: Map<string, unknown> }).buckets.size;
    assert.equal(size, 2);
  });
});

describe('client address', () => {
  const ctx = (remote: string, forwarded = '') =>
    ({ req: { socket: { remoteAddress: remote } }, get: (name: string) => (name === 'x-forwarded-for' ? forwarded : '') }) as never;

  it('ignores X-Forwarded-For unless proxies are trusted, then takes the n-th entry from the right', () => {
    assert.equal(clientIp(ctx('::ffff:10.0.0.2', '1.1.1.1'), 0), '10.0.0.2');
    assert.equal(clientIp(ctx('10.0.0.2', 'spoofed, 198.51.100.7'), 1), '198.51.100.7');
    assert.equal(clientIp(ctx('10.0.0.2', 'spoofed, 198.51.100.7, 10.0.0.1'), 2), '198.51.100.7');
    assert.equal(clientIp(ctx('10.0.0.2', '198.51.100.7'), 2), '198.51.100.7', 'fewer entries than proxies: the first');
    assert.equal(clientIp(ctx('10.0.0.2', 'not-an-ip'), 1), '10.0.0.2');
    assert.equal(clientIp(ctx('10.0.0.2'), 1), '10.0.0.2');
  });

  it('limits IPv6 by /64', () => {
    assert.equal(ipLimitKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(ipLimitKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
    assert.equal(ipLimitKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(ipLimitKey('::1'), '0:0:0:0::/64');
    assert.equal(ipLimitKey('203.0.113.5'), '203.0.113.5');
  });
});

describe('sign-in verdicts', () => {
  const policy: SignInPolicy = { delayAfter: 2, lockAfter: 4, lockoutSeconds: 60 };
  const at = (s: number) => new Date(s * 1000);
  const event = (kind: 'failure' | 'reset', s: number) => ({ kind, at: at(s) }) as SignInEventDoc;

  it('allows, then delays 1, 2 s, then locks for the lockout', () => {
    assert.deepEqual(verdict([at(100)], 100_000, policy), { allowed: true });
    assert.deepEqual(verdict([at(100), at(99)], 100_000, policy), { allowed: false, locked: false, retryAfter: 1 });
    assert.deepEqual(verdict([at(100), at(99)], 101_000, policy), { allowed: true });
    assert.deepEqual(verdict([at(100), at(99), at(98)], 100_500, policy), { allowed: false, locked: false, retryAfter: 2 });
    assert.deepEqual(verdict([at(100), at(99), at(98), at(97)], 130_000, policy), { allowed: false, locked: true, retryAfter: 30 });
    assert.deepEqual(verdict([at(100), at(99), at(98), at(97)], 160_000, policy), { allowed: true });
  });

  it('counts failures after the newest reset, within one lockout period of the newest failure', () => {
    const events = [event('failure', 200), event('failure', 190), event('reset', 180), event('failure', 170)];
    assert.deepEqual(countedFailures(events, policy), [at(200), at(190)]);
    const spread = [event('failure', 200), event('failure', 150), event('failure', 141), event('failure', 139)];
    assert.deepEqual(countedFailures(spread, policy), [at(200), at(150), at(141)]);
  });
});
