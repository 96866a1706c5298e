// Brute force against sign-in: per-account delays and lockout counted in MongoDB (so they hold across
// API processes), unknown e-mails treated like known ones, an audit trail, an administrator's unlock,
// and the per-IP limit of the credential endpoints.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { accountKey, verdict } from '../../src/identity/sign-in-throttle.js';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { createApiKey, createServerCredential } from '../helpers/credentials.js';
import { Api, type Reply } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

// Delays from the 2nd failure (1 s, then 2 s), lockout at the 4th, for a minute.
const throttle = { SIGN_IN_DELAY_AFTER: '2', SIGN_IN_LOCK_AFTER: '4', SIGN_IN_LOCKOUT_SECONDS: '60', AUTH_RATE_LIMIT_PER_MINUTE: '0' };

let platform: TestPlatform;
let replica: ApiProcess;
let limited: TestPlatform;
let perPrincipal: TestPlatform;
/** The in-process API and a second API process on the same database. */
let a: Api;
let b: Api;

before(async () => {
  [platform, limited, perPrincipal] = await Promise.all([
    startPlatform(throttle, { worker: false }),
    startPlatform({ AUTH_RATE_LIMIT_PER_MINUTE: '5' }, { worker: false }),
    startPlatform({ RATE_LIMIT_PER_MINUTE: '5' }, { worker: false }),
  ]);
  replica = await apiProcess(platform, throttle);
  a = platform.api;
  b = new Api(replica.url);
});
after(async () => {
  await replica?.stop();
  await Promise.all([platform?.close(), limited?.close(), perPrincipal?.close()]);
});

async function newAccount(): Promise<{ id: string; email: string; password: string }> {
  const admin = await platform.admin();
  const email = `flood-${randomBytes(4).toString('hex')}@example.test`;
  const password = randomBytes(12).toString('hex');
  const created = await admin.post('/users', { email, password });
  assert.equal(created.status, 201, created.text);
  return { id: created.body.id, email, password };
}

const signIn = (api: Api, email: string, password: string) => api.post('/auth/login', { email, password });
const wrong = (api: Api, email: string) => signIn(api, email, 'not the password');
const retryAfter = (r: Reply) => Number(r.headers.get('retry-after'));

function assertRefused(reply: Reply, type: 'sign-in-throttled' | 'account-locked') {
  assert.equal(reply.status, 429, reply.text);
  assert.equal(reply.body.type, `urn:platform:problem:${type}`);
  assert.match(reply.headers.get('content-type') ?? '', /application\/problem\+json/);
  assert.ok(retryAfter(reply) >= 1, `Retry-After ${reply.headers.get('retry-after')}`);
}

describe('per-account sign-in throttling, across API processes', () => {
  it('slows down, then locks the account; failures sent to two processes add up; the right password is refused meanwhile', async () => {
    const user = await newAccount();
    assert.equal((await wrong(a, user.email)).status, 401);
    assert.equal((await wrong(b, user.email)).status, 401);
    // The failure made through the other process counts here: the next try must wait 1 s.
    const delayed = await signIn(a, user.email, user.password);
    assertRefused(delayed, 'sign-in-throttled');
    assert.equal(retryAfter(delayed), 1);
    assertRefused(await signIn(b, user.email, user.password), 'sign-in-throttled');

    await sleep(1100);
    assert.equal((await wrong(b, user.email)).status, 401);
    const asked = Date.now();
    const longer = await wrong(a, user.email);
    const answered = Date.now();
    assertRefused(longer, 'sign-in-throttled');
    // The delay grows to 2 s, counted from the newest failure as recorded (before its password was
    // checked, which may take a while on a loaded machine): Retry-After is what is left of those 2 s.
    const [newest] = await platform.services.db
      .collection('sign_in_events')
      .find({ account: accountKey(user.email), kind: 'failure' })
      .sort({ at: -1 })
      .limit(1)
      .toArray();
    const left = (at: number) => Math.max(1, Math.ceil((newest!.at.getTime() + 2000 - at) / 1000));
    assert.ok(
      retryAfter(longer) >= left(answered) && retryAfter(longer) <= left(asked),
      `the delay grows: Retry-After ${retryAfter(longer)}, expected ${left(answered)}..${left(asked)}`,
    );

    await sleep(2100);
    assert.equal((await wrong(a, user.email)).status, 401, 'the fourth failure locks');
    for (const api of [a, b]) {
      const locked = await signIn(api, user.email, user.password);
      assertRefused(locked, 'account-locked');
      assert.ok(retryAfter(locked) > 55 && retryAfter(locked) <= 60, `Retry-After ${retryAfter(locked)}`);
    }

    const audit = await platform.services.audit.signInsFor(user.email, 20);
    const events = audit.map((e) => e.event);
    assert.equal(events.filter((e) => e === 'sign_in_failed').length, 4, 'each checked failure, not the refused tries');
    assert.equal(events.filter((e) => e === 'account_locked').length, 1);
    const lock = audit.find((e) => e.event === 'account_locked')!;
    assert.equal(lock.person_id, user.id);
    assert.equal(lock.ip, '127.0.0.1');
    assert.ok(!JSON.stringify(audit).includes(user.password));
  });

  it('lets an administrator unlock; the right password then works, and the count starts again', async () => {
    const user = await newAccount();
    for (const api of [a, b]) assert.equal((await wrong(api, user.email)).status, 401);
    await sleep(1100);
    assert.equal((await wrong(a, user.email)).status, 401);
    await sleep(2100);
    assert.equal((await wrong(b, user.email)).status, 401);
    assertRefused(await signIn(b, user.email, user.password), 'account-locked');

    const someone = await platform.newUser();
    assert.equal((await someone.post(`/admin/users/${user.id}/unlock`)).status, 403, 'administrators only');
    const admin = await platform.admin();
    assert.equal((await admin.post(`/admin/users/${randomUuid()}/unlock`)).status, 404);
    const unlocked = await admin.post(`/admin/users/${user.id}/unlock`);
    assert.equal(unlocked.status, 200, unlocked.text);
    assert.equal(unlocked.body.id, user.id);

    const ok = await signIn(b, user.email, user.password);
    assert.equal(ok.status, 200, ok.text);
    assert.ok(ok.body.access_token);
    assert.equal((await wrong(a, user.email)).status, 401, 'a new failure is checked, not throttled');
    assert.equal((await wrong(a, user.email)).status, 401);

    const audit = await platform.services.audit.signInsFor(user.email, 20);
    const unlock = audit.find((e) => e.event === 'account_unlocked')!;
    assert.ok(unlock, 'the unlock is audited');
    assert.equal(unlock.by, (await platform.services.users.findByEmail('admin@example.test'))!._id);
  });

  it('treats an unknown e-mail exactly like a known one', async () => {
    const known = await newAccount();
    const unknown = `nobody-${randomBytes(4).toString('hex')}@example.test`;
    const run = async (email: string) => {
      const replies: Reply[] = [];
      replies.push(await wrong(a, email), await wrong(b, email), await wrong(a, email));
      await sleep(1100);
      replies.push(await wrong(b, email), await wrong(a, email));
      await sleep(2100);
      replies.push(await wrong(a, email), await wrong(b, email));
      return replies;
    };
    const [k, u] = await Promise.all([run(known.email), run(unknown)]);
    const shape = (r: Reply) => ({
      status: r.status,
      type: r.body.type,
      title: r.body.title,
      detail: r.body.detail?.replace(/\d+ s/, 'N s'),
    });
    assert.deepEqual(k.map(shape), u.map(shape));
    assert.deepEqual(
      k.map((r) => r.status),
      [401, 401, 429, 401, 429, 401, 429],
    );
    assert.equal(k.at(-1)!.body.type, 'urn:platform:problem:account-locked');
    const lock = (await platform.services.audit.signInsFor(unknown, 20)).find((e) => e.event === 'account_locked');
    assert.equal(lock?.person_id, null, 'an unknown e-mail is locked (and audited) too');
  });

  it('checks only a handful of passwords when a burst hits both processes at once', async () => {
    const user = await newAccount();
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => wrong(i % 2 ? a : b, user.email)));
    const checked = burst.filter((r) => r.status === 401).length;
    assert.ok(
      burst.every((r) => r.status === 401 || r.status === 429),
      `statuses ${[...new Set(burst.map((r) => r.status))]}`,
    );
    // Each try is recorded before its password is checked and counted again with every other try
    // visible, so of any two simultaneous tries one sees the other: of k that pass, one saw at least
    // (k - 1) / 2 of them, which must be fewer than SIGN_IN_DELAY_AFTER, so k ≤ 2 × 2 - 1.
    // None checked is right too: on an engine that runs the 40 at once (PostgreSQL, MongoDB) every try
    // can be recorded before any counts, so each sees too many others and is refused.
    assert.ok(checked <= 3, `${checked} passwords checked`);
    const recorded = await platform.services.db
      .collection('sign_in_events')
      .countDocuments({ account: accountKey(user.email), kind: 'failure' });
    assert.equal(recorded, checked, 'refused tries leave nothing behind');
    // The account is in the state its checked failures make (one failure alone does not slow it).
    // A slowed-down account is free again once its delay has passed since the last failure, which a
    // loaded machine may take longer than: the expectation follows the recorded failures and the clock.
    const failures = (
      await platform.services.db
        .collection<{ at: Date }>('sign_in_events')
        .find({ account: accountKey(user.email), kind: 'failure' })
        .sort({ at: -1 })
        .toArray()
    ).map((d) => d.at);
    const policy = { delayAfter: 2, lockAfter: 4, lockoutSeconds: 60 };
    const allowedBefore = verdict(failures, Date.now(), policy).allowed;
    const next = await signIn(a, user.email, user.password);
    const allowedAfter = verdict(failures, Date.now(), policy).allowed;
    if (checked <= 1) assert.equal(next.status, 200, next.text);
    else if (!allowedAfter) assertRefused(next, 'sign-in-throttled');
    else if (allowedBefore) assert.equal(next.status, 200, next.text);
    else assert.ok(next.status === 200 || next.status === 429, `${next.status}: the delay ended during the request`);
  });
});

describe('per-IP limit of the credential endpoints', () => {
  it('answers 429 rate-limited with Retry-After past AUTH_RATE_LIMIT_PER_MINUTE, across /auth/token, /auth/login and /api-keys/exchange', async () => {
    const owner = await limited.newUser(); // two sign-ins
    const key = await createApiKey(owner, ['artifact:read']);
    const cred = await createServerCredential(owner, ['artifact:read']);
    const token = (secret: string, headers: Record<string, string> = {}) =>
      fetch(`${limited.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: cred.client_id, client_secret: secret }),
      });
    // Two of the five went on the sign-ins above.
    const first = await token(cred.client_secret);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('ratelimit-policy'), '"credentials";q=5;w=60');
    assert.match(first.headers.get('ratelimit') ?? '', /^"credentials";r=2;t=\d+$/);
    assert.equal((await token('scs_wrong')).status, 401);
    const last = await token(cred.client_secret, { 'x-forwarded-for': '203.0.113.8' });
    assert.equal(last.status, 200);
    assert.match(last.headers.get('ratelimit') ?? '', /^"credentials";r=0;t=\d+$/);
    // X-Forwarded-For is not believed unless TRUST_PROXY_HOPS says proxies append to it.
    const refused = await token(cred.client_secret, { 'x-forwarded-for': '203.0.113.9' });
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const body = await refused.json();
    assert.equal(body.type, 'urn:platform:problem:rate-limited');
    const wait = Number(refused.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 12, `Retry-After ${wait}`);
    assert.match(refused.headers.get('ratelimit') ?? '', /^"credentials";r=0;t=\d+$/);
    assert.equal((await limited.api.post('/auth/login', { email: 'x@example.test', password: 'whatever it is' })).status, 429);
    assert.equal((await limited.api.post('/api-keys/exchange', { api_key: key.key })).status, 429);
    // Authenticated requests are not what this limit counts.
    assert.equal((await owner.get('/workspaces')).status, 200);
  });
});

describe('per-principal rate limit', () => {
  it('advertises RateLimit-Policy and RateLimit on the API and /mcp, and answers 429 with Retry-After past the quota', async () => {
    const user = await perPrincipal.newUser();
    const key = await createApiKey(user, ['artifact:read']); // the first of the person's five
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const reply = await user.get('/workspaces');
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('ratelimit-policy'), '"default";q=5;w=60');
      seen.push(reply.headers.get('ratelimit')!);
    }
    assert.deepEqual(
      seen.map((h) => /^"default";r=(\d+);t=(\d+)$/.exec(h)?.[1]),
      ['3', '2', '1', '0'],
    );
    for (const h of seen) assert.ok(Number(/t=(\d+)/.exec(h)![1]) <= 12, h);

    const refused = await user.get('/workspaces');
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.body.type, 'urn:platform:problem:rate-limited');
    assert.equal(refused.body.policy, 'default');
    const wait = retryAfter(refused);
    assert.ok(wait >= 1 && wait <= 12, `Retry-After ${wait}`);
    assert.match(refused.headers.get('ratelimit') ?? '', /^"default";r=0;t=\d+$/);
    const mcp = (api: Api) =>
      api.request('POST', '/mcp', {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: { accept: 'application/json, text/event-stream' },
      });
    const mcpRefused = await mcp(user);
    assert.equal(mcpRefused.status, 429, '/mcp draws on the same bucket');
    assert.equal(mcpRefused.body.type, 'urn:platform:problem:rate-limited');

    // Another principal (the person's API key) has a bucket of its own.
    const asKey = await mcp(new Api(perPrincipal.url, key.key));
    assert.equal(asKey.status, 200, asKey.text);
    assert.match(asKey.headers.get('ratelimit') ?? '', /^"default";r=4;t=\d+$/);
  });
});

const randomUuid = () => '0196a3f0-0000-7000-8000-' + randomBytes(6).toString('hex');
