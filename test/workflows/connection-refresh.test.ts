// The OAuth connection's refresh timer (src/workflows/connection-flow.ts, connection-refresh-timer.ts)
// on the time-skipping test server, against a real authorization server (oidc-provider) on loopback:
// an hour-long access token is refreshed by the timer a minute (and its jitter) before it expires, not
// before; the hour runs in seconds.
//
// The provider keeps real time while the workflow's clock is skipped ahead, so a token the provider
// issues after a skip expires (on the skipped clock) sooner than its lifetime says; the refreshed
// token here lives a week, so that its own refresh is not due at once. (The clock is the
// environment's, shared by the file: one test here; a refresh the provider refuses is in
// test/connections/oauth.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectionFlowStateQuery, type ConnectionFlowState } from '../../src/workflows/contracts/connection-flow.js';
import { connectionWorkflowId } from '../../src/workflows/contracts/ids.js';
import { createServerCredential, type ServerCredential } from '../helpers/credentials.js';
import { Api, eventually } from '../helpers/http.js';
import { followAsBrowser, startOAuthServer, type OAuthServer } from '../helpers/oauth-provider.js';
import { startTimeSkippingPlatform, type TimeSkippingPlatform } from './time-skipping.js';

const authorizerType = 'application/vnd.platform.authorizer+json';
const minute = 60_000;

let platform: TimeSkippingPlatform;
let oauth: OAuthServer;
let owner: Api & { userId: string };
let ws: string;
let authorizerId: string;
let cred: ServerCredential;

before(async () => {
  oauth = await startOAuthServer();
  platform = await startTimeSkippingPlatform({ MCP_OUTBOUND_ALLOW: '127.0.0.0/8' });
  owner = await platform.newUser();
  ws = (await owner.post('/workspaces', { name: 'connected' })).body.id;
  authorizerId = await newAuthorizer();
  cred = await createServerCredential(owner, ['artifact:read']);
  await platform.stopIndexing();
});
after(async () => {
  await platform?.close();
  await oauth?.close();
});

/** The authorizer artifact, with the platform registered as a client of the provider. */
async function newAuthorizer(): Promise<string> {
  const content = { provider: 'notes', auth_url: oauth.authUrl, token_url: oauth.tokenUrl, pkce: true };
  // The redirect URI names the authorizer: create it first, then register the client and fill the authorizer in.
  const created = await owner.post('/artifacts', {
    title: 'Notes OAuth',
    content_type: authorizerType,
    content: JSON.stringify({ ...content, scopes: ['openid'], client_id: 'pending' }),
    collection_id: ws,
  });
  assert.equal(created.status, 201, created.text);
  const client = oauth.registerClient(`${platform.config.apiUri}/connections/${created.body.id}/callback`);
  const secret = await owner.post('/secrets', { name: 'notes client secret', value: client.client_secret });
  const full = { ...content, scopes: ['openid', 'offline_access', 'notes:read'], client_id: client.client_id, secret_id: secret.body.id };
  const updated = await owner.patch(`/artifacts/${created.body.id}`, { content: JSON.stringify(full) });
  assert.equal(updated.status, 200, updated.text);
  return created.body.id;
}

/** A person with read access who consents at the provider as `account`: an active connection's id. */
async function connected(account: string): Promise<{ person: Api; id: string }> {
  const person = await platform.newUser();
  assert.equal((await owner.post(`/workspaces/${ws}/shares`, { person_id: person.userId, flags: 'R' })).status, 200);
  assert.equal((await person.post('/consents', { credential_kind: 'server_credential', credential_id: cred.client_id })).status, 201);
  const started = await person.post(`/connections/${authorizerId}/start`, { server_client_ids: [cred.client_id] });
  assert.equal(started.status, 200, started.text);
  oauth.person = { decision: 'approve', account };
  const page = await followAsBrowser(started.body.authorization_url);
  assert.match(page.text, /data-outcome="connected"/);
  return { person, id: started.body.id };
}

/** The connection workflow's own view: token version, when it expires, when the timer refreshes it. */
const flowState = (id: string): Promise<ConnectionFlowState> =>
  platform.services.temporal.workflow.getHandle(connectionWorkflowId(id)).query(connectionFlowStateQuery);

describe('connection refresh timer (time-skipping)', () => {
  it('refreshes an hour-long token on its timer, within the minute (and jitter) before it expires', async () => {
    oauth.lifetimes.set('hank', 3600);
    const { person, id } = await connected('hank');
    const first = await eventually(async () => {
      const s = await flowState(id);
      return s.status === 'active' && s.next_refresh_at ? s : null;
    });
    const expiresAt = Date.parse(first.expires_at!);
    const refreshAt = Date.parse(first.next_refresh_at!);
    // SPEC §8's buffer: a minute before expiry, and up to half a minute more of jitter.
    const lead = expiresAt - refreshAt;
    assert.ok(lead >= minute && lead <= 1.5 * minute, `refresh due ${lead} ms before expiry`);
    assert.ok(expiresAt - (await platform.now()) > 50 * minute, 'the access token lives an hour');

    await platform.skip(refreshAt - (await platform.now()) - 30_000);
    const waiting = await flowState(id);
    assert.equal(waiting.token_version, first.token_version, 'half a minute before it is due, nothing was refreshed');
    assert.equal(waiting.refreshes_this_run, 0);
    assert.equal((await person.get(`/connections/${id}`)).body.refresh_count, 0);

    oauth.lifetimes.set('hank', 7 * 86_400);
    await platform.skip(minute);
    const refreshed = await eventually(async () => {
      const s = await flowState(id);
      return s.token_version > first.token_version ? s : null;
    });
    assert.equal(refreshed.status, 'active');
    assert.ok((await platform.now()) < expiresAt, 'refreshed before the old token expired');
    const stored = (await person.get(`/connections/${id}`)).body;
    assert.equal(stored.refresh_count, 1);
    assert.equal(stored.status, 'active');
    // The timer is set again from the new token: its refresh is due the same lead before its expiry.
    const nextLead = Date.parse(refreshed.expires_at!) - Date.parse(refreshed.next_refresh_at!);
    assert.ok(nextLead >= minute && nextLead <= 1.5 * minute, `next refresh due ${nextLead} ms before expiry`);
    assert.equal(refreshed.refreshes_this_run, 1, 'one refresh');

    const deleted = await person.delete(`/connections/${id}`);
    assert.equal(deleted.status, 200, deleted.text);
  });
});
