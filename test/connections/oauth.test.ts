// OAuth connections (SPEC §2.4, §2.5, §4.4) against a real authorization server (oidc-provider) on
// loopback: consent, the code exchange with PKCE, refresh before expiry, denial, replays, a wrong
// verifier, a revoked grant, projection for a bound server credential, an MCP server that demands the
// projected header, and deletion with revocation. No token may surface in logs, API answers or
// Temporal histories.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pkcePair } from '../../src/connections/oauth.js';
import { Api, eventually } from '../helpers/http.js';
import { asServer, createApiKey, createServerCredential, type ServerCredential } from '../helpers/credentials.js';
import { followAsBrowser, startOAuthServer, type OAuthServer } from '../helpers/oauth-provider.js';
import { mcpServerType, registerServer } from '../helpers/mcp-servers.js';
import { startProtectedMcp, type ProtectedMcp } from '../helpers/protected-mcp.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { openedHistory } from '../helpers/history.js';

const authorizerType = 'application/vnd.platform.authorizer+json';

let platform: TestPlatform;
let oauth: OAuthServer;
let notes: ProtectedMcp;
let owner: Api & { userId: string }; // registers the authorizer and the MCP server
let ws: string;
let authorizerId: string;
let cred: ServerCredential; // a server that projects connections
let server: Api; // signed in as `cred`
let firstConnection: string;
/** Every API answer the tests saw, to grep for tokens at the end. */
const answers: string[] = [];

function keep<T extends { text: string }>(reply: T): T {
  answers.push(reply.text);
  return reply;
}

const onBehalfOf = (person: string) => ({ 'x-on-behalf-of': person });
const project = async (connectionId: string, person: string, as = server) =>
  keep(await as.request('POST', `/connections/${connectionId}/project`, { headers: onBehalfOf(person) }));

async function newAuthorizer(api: Api, workspace: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const redirectUri = (id: string) => `${platform.config.apiUri}/connections/${id}/callback`;
  // The redirect URI names the authorizer: create it first, then register the client and fill the authorizer in.
  const created = await api.post('/artifacts', {
    title: 'Notes OAuth',
    content_type: authorizerType,
    content: JSON.stringify({
      provider: 'notes',
      auth_url: oauth.authUrl,
      token_url: oauth.tokenUrl,
      scopes: ['openid'],
      client_id: 'pending',
      pkce: true,
    }),
    collection_id: workspace,
  });
  assert.equal(created.status, 201, created.text);
  const client = oauth.registerClient(redirectUri(created.body.id));
  const secret = await api.post('/secrets', { name: 'notes client secret', value: client.client_secret });
  const content = {
    provider: 'notes',
    auth_url: oauth.authUrl,
    token_url: oauth.tokenUrl,
    scopes: ['openid', 'offline_access', 'notes:read'],
    client_id: client.client_id,
    pkce: true,
    secret_id: secret.body.id,
    ...overrides,
  };
  const updated = await api.patch(`/artifacts/${created.body.id}`, { content: JSON.stringify(content) });
  assert.equal(updated.status, 200, updated.text);
  return created.body.id;
}

/** A person starts a connection and goes through the provider as `account`; returns the start answer and the page. */
async function connect(
  person: Api,
  account: string,
  opts: { authorizer?: string; decision?: 'approve' | 'deny'; tamper?: (url: URL) => void; bind?: string[] } = {},
) {
  const started = keep(
    await person.post(`/connections/${opts.authorizer ?? authorizerId}/start`, { server_client_ids: opts.bind ?? [cred.client_id] }),
  );
  assert.equal(started.status, 200, started.text);
  oauth.person = { decision: opts.decision ?? 'approve', account };
  const url = new URL(started.body.authorization_url);
  opts.tamper?.(url);
  const page = await followAsBrowser(url.toString());
  return { started: started.body, page };
}

/** Goes through the provider but stops at the platform's callback, returning its URL unvisited. */
async function callbackUrlFor(person: Api, account: string): Promise<{ started: { id: string }; callback: URL }> {
  const started = keep(await person.post(`/connections/${authorizerId}/start`, { server_client_ids: [cred.client_id] }));
  assert.equal(started.status, 200, started.text);
  oauth.person = { decision: 'approve', account };
  const stop = await followAsBrowser(started.body.authorization_url, { stopAt: (u) => u.pathname.endsWith('/callback') });
  return { started: started.body, callback: stop.url };
}

/** A history as text, its payloads (bytes) decoded: what the Temporal UI would show. */
function decoded(value: unknown): string {
  const walk = (v: unknown): unknown => {
    if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return JSON.stringify(walk(value));
}

const connection = async (person: Api, id: string) => keep(await person.get(`/connections/${id}`)).body;

before(async () => {
  oauth = await startOAuthServer();
  notes = await startProtectedMcp(oauth);
  platform = await startPlatform(
    { MCP_OUTBOUND_ALLOW: '127.0.0.0/8', OAUTH_CONSENT_TIMEOUT_SECONDS: '15', OAUTH_REFRESHES_PER_RUN: '2' },
    { worker: true },
  );
  owner = await platform.newUser();
  ws = (await owner.post('/workspaces', { name: 'connected' })).body.id;
  authorizerId = await newAuthorizer(owner, ws);
  cred = await createServerCredential(owner, ['artifact:read', 'artifact:invoke']);
  server = await asServer(platform.url, cred);
});
after(async () => {
  await platform?.close();
  await Promise.all([oauth?.close(), notes?.close()]);
});

/** A new person with read access to the workspace who consents to the server credential acting for them. */
async function person(): Promise<Api & { userId: string }> {
  const p = await platform.newUser();
  assert.equal((await owner.post(`/workspaces/${ws}/shares`, { person_id: p.userId, flags: 'R' })).status, 200);
  assert.equal((await p.post('/consents', { credential_kind: 'server_credential', credential_id: cred.client_id })).status, 201);
  return p;
}

describe('connecting', () => {
  it('start → consent → callback → tokens → projection, with PKCE and a durable workflow', async () => {
    const alice = await person();
    const { started, page } = await connect(alice, 'alice');
    const url = new URL(started.authorization_url);
    assert.equal(url.origin + url.pathname, oauth.authUrl);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(url.searchParams.get('code_challenge'));
    assert.ok(url.searchParams.get('state'));
    assert.equal(url.searchParams.get('redirect_uri'), started.redirect_uri);
    assert.equal(started.status, 'pending');
    assert.equal(page.status, 200, page.text);
    assert.match(page.text, /data-outcome="connected"/);

    firstConnection = started.id;
    const conn = await connection(alice, started.id);
    assert.equal(conn.status, 'active');
    assert.equal(conn.has_refresh_token, true);
    assert.deepEqual(conn.server_client_ids, [cred.client_id]);
    assert.ok(Date.parse(conn.expires_at) > Date.now());
    const described = await platform.services.temporal.workflow.getHandle(conn.workflow_id).describe();
    assert.equal(described.status.name, 'RUNNING');
    const attrs = described.searchAttributes as Record<string, unknown[]>;
    assert.deepEqual(attrs.RunKind, ['oauth_connection']);
    assert.deepEqual(attrs.ArtifactId, [authorizerId]);
    assert.deepEqual(attrs.PrincipalId, [alice.userId]);

    const projected = await project(started.id, alice.userId);
    assert.equal(projected.status, 200, projected.text);
    assert.equal(projected.headers.get('cache-control'), 'no-store');
    const [scheme, token] = projected.body.headers.Authorization.split(' ');
    assert.equal(scheme, 'Bearer');
    assert.ok(oauth.issuedTokens().access.includes(token), 'the projection carries the token the provider issued');

    const listed = keep(await alice.get('/connections'));
    assert.deepEqual(
      listed.body.items.map((c: { id: string }) => c.id),
      [started.id],
    );
  });

  it("calls an MCP server with oauth2 auth using the caller's own connection, inside the call activity", async () => {
    const bob = await person();
    const serverId = await registerServer(
      owner,
      ws,
      { transport: { type: 'http', url: notes.url }, auth: { type: 'oauth2', authorizer_id: authorizerId } },
      'notes',
    );
    assert.equal((await owner.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'RI' })).status, 200);

    const wrong = await owner.post('/artifacts', {
      title: 'notes',
      content_type: mcpServerType,
      content: JSON.stringify({ transport: { type: 'http', url: notes.url }, auth: { type: 'oauth2', authorizer_id: serverId } }),
      collection_id: ws,
    });
    assert.equal(wrong.status, 400, 'an oauth2 server must name an authorizer');
    assert.equal(wrong.body.invalid_params[0].name, 'content.auth.authorizer_id');

    const before = keep(await bob.post(`/artifacts/${serverId}/invoke`, { name: 'whoami', arguments: {} }));
    assert.equal(before.status, 200, before.text);
    assert.equal(before.body.result.isError, true);
    assert.match(JSON.stringify(before.body.result.content), /no connection to authorizer .*POST \/connections\/.*\/start/);

    const { page } = await connect(bob, 'bob');
    assert.match(page.text, /data-outcome="connected"/);
    const rejectedBefore = notes.rejected;
    const called = keep(await bob.post(`/artifacts/${serverId}/invoke`, { name: 'whoami', arguments: {} }));
    assert.equal(called.status, 200, called.text);
    assert.equal(called.body.result.isError ?? false, false, called.text);
    assert.deepEqual(called.body.result.structuredContent, { sub: 'bob' });
    assert.equal(notes.rejected, rejectedBefore, 'every request carried a token the server accepted');
    assert.ok(notes.seen.some((h) => h.startsWith('Bearer ')));

    // A token about to expire is refreshed inside the call's activity (through the connection's workflow) before it is used.
    const connectionId = (await keep(await bob.get('/connections')).body.items[0].id) as string;
    const refreshes = (await connection(bob, connectionId)).refresh_count;
    await platform.services.db
      .collection('connections')
      .updateOne({ _id: connectionId } as never, { $set: { expires_at: new Date(Date.now() + 1000) } });
    const again = keep(await bob.post(`/artifacts/${serverId}/invoke`, { name: 'whoami', arguments: {} }));
    assert.deepEqual(again.body.result.structuredContent, { sub: 'bob' }, again.text);
    assert.equal((await connection(bob, connectionId)).refresh_count, refreshes + 1);
  });

  it("shows the provider's denial on the page and leaves a failed connection", async () => {
    const carol = await person();
    const { started, page } = await connect(carol, 'carol', { decision: 'deny' });
    assert.equal(page.status, 403);
    assert.match(page.text, /data-outcome="failed"/);
    assert.match(page.text, /Access denied/);
    const conn = await connection(carol, started.id);
    assert.equal(conn.status, 'failed');
    assert.equal(conn.error.code, 'access_denied');
    assert.equal((await project(started.id, carol.userId)).body.type, 'urn:platform:problem:not-connected');
  });

  it('refuses a replayed state, and the connection stays as it was', async () => {
    const dave = await person();
    const { started, callback } = await callbackUrlFor(dave, 'dave');
    const first = await followAsBrowser(callback.toString());
    assert.match(first.text, /data-outcome="connected"/);
    const version = (await connection(dave, started.id)).refreshed_at;
    const token = (await project(started.id, dave.userId)).body.headers.Authorization;
    const replay = await followAsBrowser(callback.toString());
    assert.equal(replay.status, 400);
    assert.match(replay.text, /already been used/);
    const conn = await connection(dave, started.id);
    assert.equal(conn.status, 'active');
    assert.equal(conn.refreshed_at, version);
    assert.equal((await project(started.id, dave.userId)).body.headers.Authorization, token);
  });

  it("fails on a bad code: the token endpoint's 4xx is shown and the connection fails", async () => {
    const erin = await person();
    const { started, callback } = await callbackUrlFor(erin, 'erin');
    callback.searchParams.set('code', 'not-a-code-the-provider-issued');
    const page = await followAsBrowser(callback.toString());
    assert.equal(page.status, 400);
    assert.match(page.text, /Connection failed/);
    assert.match(page.text, /invalid_grant/);
    const conn = await connection(erin, started.id);
    assert.equal(conn.status, 'failed');
    assert.equal(conn.error.code, 'token_rejected');
  });

  it('fails when the PKCE verifier does not match the challenge the provider saw', async () => {
    const frank = await person();
    const { started, page } = await connect(frank, 'frank', { tamper: (u) => u.searchParams.set('code_challenge', pkcePair().challenge) });
    assert.equal(page.status, 400);
    assert.match(page.text, /invalid_grant/);
    const conn = await connection(frank, started.id);
    assert.equal(conn.status, 'failed');
    assert.equal(conn.error.code, 'token_rejected');
  });

  it('answers a malformed or unknown callback with a failure page', async () => {
    const unknown = await fetch(`${platform.url}/connections/${authorizerId}/callback?state=never-issued&code=x`);
    assert.equal(unknown.status, 400);
    assert.match(await unknown.text(), /unknown/);
    const none = await fetch(`${platform.url}/connections/${authorizerId}/callback`);
    assert.equal(none.status, 400);
    assert.equal(none.headers.get('cache-control'), 'no-store');
  });

  it('fails the connection when nobody finishes the consent in time', async () => {
    const gina = await person();
    const started = keep(await gina.post(`/connections/${authorizerId}/start`, {}));
    assert.equal(started.status, 200, started.text);
    const conn = await eventually(
      async () => {
        const c = await connection(gina, started.body.id);
        return c.status === 'failed' && c;
      },
      40_000,
      'the consent to expire',
    );
    assert.equal(conn.error.code, 'consent_expired');
  });
});

describe('refresh', () => {
  it('refreshes before expiry on a timer, continuing as new to keep the history short', async () => {
    oauth.shortLived.add('hank');
    const hank = await person();
    const { started } = await connect(hank, 'hank');
    const first = (await project(started.id, hank.userId)).body.headers.Authorization;
    const refreshed = await eventually(
      async () => {
        const c = await connection(hank, started.id);
        return c.refresh_count >= 3 && c;
      },
      40_000,
      'three refreshes',
    );
    assert.equal(refreshed.status, 'active');
    const now = (await project(started.id, hank.userId)).body.headers.Authorization;
    assert.notEqual(now, first);
    const runs = await eventually(
      async () => {
        const found: string[] = [];
        for await (const run of platform.services.temporal.workflow.list({ query: `WorkflowId = '${refreshed.workflow_id}'` }))
          found.push(run.status.name);
        return found.includes('CONTINUED_AS_NEW') && found;
      },
      20_000,
      'a run that continued as new',
    );
    assert.ok(runs.includes('RUNNING'), `runs: ${runs.join(', ')}`);
  });

  it('refreshes an expiring token before projecting it', async () => {
    const ivan = await person();
    const { started } = await connect(ivan, 'ivan');
    const before = await connection(ivan, started.id);
    const old = (await project(started.id, ivan.userId)).body.headers.Authorization;
    // The clock jumps: the record says the token is about to expire (the workflow's timer is an hour out).
    await platform.services.db
      .collection('connections')
      .updateOne({ _id: started.id } as never, { $set: { expires_at: new Date(Date.now() + 1000) } });
    const projected = await project(started.id, ivan.userId);
    assert.equal(projected.status, 200, projected.text);
    assert.notEqual(projected.body.headers.Authorization, old);
    assert.equal((await connection(ivan, started.id)).refresh_count, before.refresh_count + 1);
  });

  it('marks the connection as needing re-consent when the provider revokes the refresh token', async () => {
    oauth.shortLived.add('judy');
    const judy = await person();
    const { started } = await connect(judy, 'judy');
    oauth.revokeAccount('judy');
    const conn = await eventually(
      async () => {
        const c = await connection(judy, started.id);
        return c.status === 'needs_reconsent' && c;
      },
      30_000,
      'needs_reconsent',
    );
    assert.equal(conn.error.code, 'refresh_rejected');
    assert.equal(conn.has_refresh_token, false);
    const projected = await project(started.id, judy.userId);
    assert.equal(projected.status, 409);
    assert.equal(projected.body.type, 'urn:platform:problem:connection-needs-reconsent');
    // Consent again: the same connection is active once more.
    const again = await connect(judy, 'judy');
    assert.equal(again.started.id, started.id);
    assert.match(again.page.text, /data-outcome="connected"/);
    assert.equal((await connection(judy, started.id)).status, 'active');
  });
});

describe('access', () => {
  let kim: Api & { userId: string };
  let connectionId: string;
  before(async () => {
    kim = await person();
    connectionId = (await connect(kim, 'kim')).started.id;
  });

  it("projects only for the bound credential acting for the connection's person", async () => {
    assert.equal((await project(connectionId, kim.userId, kim)).status, 403, "a person's own token is not a server credential");
    const other = await createServerCredential(owner, ['artifact:read', 'artifact:invoke']);
    assert.equal((await kim.post('/consents', { credential_kind: 'server_credential', credential_id: other.client_id })).status, 201);
    assert.equal(
      (await project(connectionId, kim.userId, await asServer(platform.url, other))).status,
      404,
      'a credential the connection is not bound to',
    );
    const lee = await person();
    assert.equal((await project(connectionId, lee.userId)).status, 404, 'acting for another person');
    const narrow = await createServerCredential(owner, ['artifact:read']);
    assert.equal((await project(connectionId, kim.userId, await asServer(platform.url, narrow))).status, 403, 'without artifact:invoke');
  });

  it("starts only with a person's own token, for an authorizer they can see, bound to real credentials", async () => {
    const key = await createApiKey(kim, ['artifact:read', 'artifact:invoke']);
    assert.equal((await new Api(platform.url, key.key).post(`/connections/${authorizerId}/start`, {})).status, 403);
    const stranger = await platform.newUser();
    assert.equal((await stranger.post(`/connections/${authorizerId}/start`, {})).status, 404);
    const text = await owner.post('/artifacts', { title: 'x', content_type: 'text/plain', content: 'x', collection_id: ws });
    assert.equal((await owner.post(`/connections/${text.body.id}/start`, {})).status, 404);
    const unknown = await kim.post(`/connections/${authorizerId}/start`, { server_client_ids: ['no-such-credential'] });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.invalid_params[0].name, 'server_client_ids.0');
    assert.equal((await kim.post(`/connections/${authorizerId}/start`, { tokens: true })).status, 400);
  });

  it('lists a credential only the connections bound to it; a stranger sees none', async () => {
    const listed = keep(await server.request('GET', '/connections', { headers: onBehalfOf(kim.userId) }));
    assert.deepEqual(
      listed.body.items.map((c: { id: string }) => c.id),
      [connectionId],
    );
    const stranger = await platform.newUser();
    assert.equal((await stranger.get(`/connections/${connectionId}`)).status, 404);
    assert.equal((await stranger.delete(`/connections/${connectionId}`)).status, 404);
  });

  it('deletes: revokes the grant at the provider, removes the record, ends the workflow', async () => {
    assert.ok(oauth.liveRefreshTokens('kim').length > 0);
    const deleted = keep(await kim.delete(`/connections/${connectionId}`));
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.revoked_at_provider, true);
    assert.deepEqual(oauth.liveRefreshTokens('kim'), []);
    assert.equal((await kim.get(`/connections/${connectionId}`)).status, 404);
    const described = await platform.services.temporal.workflow.getHandle(`connection-${connectionId}`).describe();
    assert.equal(described.status.name, 'COMPLETED');
  });
});

describe('secrecy', () => {
  it('no access or refresh token appears in logs, API answers or Temporal histories', async () => {
    const { access, refresh } = oauth.issuedTokens();
    assert.ok(access.length > 5 && refresh.length > 3, 'the tests issued tokens');
    const histories: string[] = [];
    for await (const run of platform.services.temporal.workflow.list({ query: `TaskQueue = '${platform.config.TEMPORAL_TASK_QUEUE}'` })) {
      const history = await openedHistory(platform, run.workflowId, run.runId);
      histories.push(decoded(history));
    }
    assert.ok(
      histories.some((h) => h.includes('refreshConnectionTokens')),
      'the histories include the refreshes',
    );
    assert.ok(
      histories.some((h) => h.includes(firstConnection)),
      'payloads are decoded, so a token would show',
    );
    const projections = answers.filter((a) => a.includes('"headers"'));
    const haystacks: [string, string][] = [
      ['logs', platform.logs.join('\n')],
      ['API answers', answers.filter((a) => !projections.includes(a)).join('\n')],
      ['Temporal histories', histories.join('\n')],
      ['stored connections', JSON.stringify(await platform.services.db.collection('connections').find().toArray())],
    ];
    for (const token of [...access, ...refresh]) {
      for (const [where, text] of haystacks) assert.ok(!text.includes(token), `a token appears in ${where}`);
    }
  });
});
