// The typed client package's token handling and deadlines (clients/typescript/src, issue #37), against
// the real platform: a client-credentials token is exchanged once, reused, exchanged again 60 s before
// it expires and after a 401; an API key is never retried; forPerson sends X-On-Behalf-Of for a person
// who consented; a deadline bounds the token exchange too; an answer that is not problem+json still
// becomes a ProblemError. (client-package.test.ts runs the packed package; this file its source.)
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DeadlineError, PlatformClient, ProblemError, TokenError } from '../../clients/typescript/src/index.js';
import { createApiKey, createServerCredential, type ServerCredential } from '../helpers/credentials.js';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };
let credential: ServerCredential;
const servers: Server[] = [];

before(async () => {
  platform = await startPlatform({}, { worker: false });
  [alice, bob] = await Promise.all([platform.newUser(), platform.newUser()]);
  credential = await createServerCredential(alice, ['artifact:read']);
});
after(async () => {
  for (const s of servers) (s.closeAllConnections(), s.close());
  await platform?.close();
});

/** A fetch that counts what it sends, by path, and remembers the headers of each request. */
function counting() {
  const sent: { path: string; headers: Record<string, string> }[] = [];
  const fetcher: typeof fetch = (input, init) => {
    sent.push({ path: new URL(String(input)).pathname, headers: { ...(init?.headers as Record<string, string>) } });
    return fetch(input, init);
  };
  return { sent, fetcher, count: (path: string) => sent.filter((s) => s.path === path).length };
}

/** A server on loopback that answers as `handler` says (or never, when it does nothing). */
async function local(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the typed client: tokens and deadlines', () => {
  it('exchanges client credentials once, reuses the token, and again 60 s before it expires', async () => {
    let clock = Date.now();
    const { fetcher, count } = counting();
    const client = new PlatformClient({
      baseUrl: platform.url,
      credentials: { clientId: credential.client_id, clientSecret: credential.client_secret },
      fetch: fetcher,
      now: () => clock,
    });
    await Promise.all([client.get('/me'), client.get('/me'), client.get('/workspaces')]);
    assert.equal(count('/auth/token'), 1, 'one exchange for three concurrent calls');
    clock += (3600 - 61) * 1000; // the platform's server tokens live 3600 s (SPEC §8)
    await client.get('/me');
    assert.equal(count('/auth/token'), 1, 'still fresh 61 s before it expires');
    clock += 2000;
    const me = await client.get('/me');
    assert.equal(count('/auth/token'), 2, 'exchanged again within 60 s of expiry');
    assert.equal(me.actor.kind, 'server_credential');
  });

  it('after a 401, takes a fresh token and retries once; an API key is not retried', async () => {
    const key = (await createApiKey(alice, ['artifact:read'])).key;
    const given = ['pk_revoked-or-wrong', key];
    const { fetcher, count } = counting();
    const renewing = new PlatformClient({ baseUrl: platform.url, credentials: { accessToken: () => given.shift()! }, fetch: fetcher });
    assert.equal((await renewing.get('/me')).actor.kind, 'api_key');
    assert.equal(count('/me'), 2, 'the 401, then the retry with the fresh token');

    const fixed = counting();
    const wrong = new PlatformClient({ baseUrl: platform.url, credentials: { apiKey: 'pk_wrong' }, fetch: fixed.fetcher });
    const err = await wrong.get('/me').then(
      () => assert.fail('a wrong key was accepted'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ProblemError && err.status === 401 && err.slug === 'unauthorized', String(err));
    assert.equal(fixed.count('/me'), 1, 'a key cannot get better: no retry');
  });

  it('acts for a person who consented (X-On-Behalf-Of), and is refused for one who did not', async () => {
    const consent = await bob.post('/consents', { credential_kind: 'server_credential', credential_id: credential.client_id });
    assert.equal(consent.status, 201, consent.text);
    const { fetcher, sent } = counting();
    const client = new PlatformClient({
      baseUrl: platform.url,
      credentials: { clientId: credential.client_id, clientSecret: credential.client_secret },
      fetch: fetcher,
    });
    const asBob = await client.forPerson(bob.userId).get('/me');
    assert.equal(asBob.id, bob.userId);
    assert.equal(sent.at(-1)?.headers['x-on-behalf-of'], bob.userId);
    const other = (await platform.newUser()).userId;
    const refused = await client
      .forPerson(other)
      .get('/me')
      .catch((e: unknown) => e);
    assert.ok(refused instanceof ProblemError && refused.slug === 'on-behalf-of-refused', String(refused));
    assert.equal((await client.get('/me')).id, alice.userId, 'the client itself still acts as its creator');
  });

  it('ends a token exchange that hangs at its deadline, and reports a refused secret as a TokenError', async () => {
    const hanging = await local(() => undefined);
    const started = Date.now();
    const late = await new PlatformClient({
      baseUrl: hanging,
      credentials: { clientId: 'x', clientSecret: 'y' },
      timeoutMs: 400,
    })
      .get('/me')
      .catch((e: unknown) => e);
    assert.ok(late instanceof DeadlineError, String(late));
    assert.equal(late.path, '/me');
    assert.ok(Date.now() - started < 5000);

    const refused = await new PlatformClient({
      baseUrl: platform.url,
      credentials: { clientId: credential.client_id, clientSecret: 'nope' },
    })
      .get('/me')
      .catch((e: unknown) => e);
    assert.ok(refused instanceof TokenError && refused.error === 'invalid_client' && refused.status === 401, String(refused));
  });

  it("aborts with the caller's signal, and makes a ProblemError of an answer that is no problem+json", async () => {
    const hanging = await local(() => undefined);
    const controller = new AbortController();
    const call = new PlatformClient({ baseUrl: hanging, credentials: { apiKey: 'pk_x' } }).get('/me', { signal: controller.signal });
    controller.abort(new Error('the caller gave up'));
    await assert.rejects(call, /the caller gave up/);

    const proxy = await local((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
    });
    const err = await new PlatformClient({ baseUrl: proxy, credentials: { apiKey: 'pk_x' } }).get('/me').catch((e: unknown) => e);
    assert.ok(err instanceof ProblemError, String(err));
    assert.equal(err.status, 502);
    assert.equal(err.type, 'about:blank');
    assert.match(err.detail ?? '', /Bad gateway/);
  });
});
