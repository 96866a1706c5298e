// Outbound OAuth by discovery with a client ID metadata document (MCP 2025-11-25): when the
// authorization server takes them and the platform is on https, the platform registers nothing there:
// its client_id is the URL of a document it serves, which the authorization server fetches. The
// platform is behind an https front (a TLS terminator, tls-front.ts); oidc-provider is the
// authorization server, with its client ID metadata document support on.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { freePort } from '../../temporal-dev/engines.js';
import type { Api } from '../helpers/http.js';
import { followAsBrowser, startOAuthServer, type OAuthServer } from '../helpers/oauth-provider.js';
import { registerServer } from '../helpers/mcp-servers.js';
import { startProtectedMcp, type ProtectedMcp } from '../helpers/protected-mcp.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { startTlsFront, type TlsFront } from './tls-front.js';

let platform: TestPlatform;
let front: TlsFront;
let oauth: OAuthServer;
let notes: ProtectedMcp;
let owner: Api & { userId: string };
let ws: string;

before(async () => {
  const [port, frontPort] = [await freePort(), await freePort()];
  front = await startTlsFront(frontPort, `http://127.0.0.1:${port}`);
  oauth = await startOAuthServer({ metadataDocuments: { fetch: front.fetch } });
  notes = await startProtectedMcp(oauth, { discovery: 'challenge' });
  platform = await startPlatform({ PORT: String(port), PLATFORM_API_URI: front.url, MCP_OUTBOUND_ALLOW: '127.0.0.0/8' }, { worker: true });
  owner = await platform.newUser();
  ws = (await owner.post('/workspaces', { name: 'discovered' })).body.id;
});
after(async () => {
  await platform?.close();
  await Promise.all([front?.close(), oauth?.close(), notes?.close()]);
});

it('connects with a client ID metadata document the platform serves, and registers no client', async () => {
  const serverId = await registerServer(owner, ws, { transport: { type: 'http', url: notes.url } }, 'Notes');
  const answer = await owner.post(`/artifacts/${serverId}/op/connect`, {});
  assert.equal(answer.status, 200, answer.text);
  const authorizerId = answer.body.authorizer_id;
  const documentUrl = `${front.url}/connections/${authorizerId}/client-metadata`;
  const content = JSON.parse((await owner.get(`/artifacts/${authorizerId}`)).body.content);
  assert.equal(content.client_id, documentUrl);
  assert.equal(content.secret_id, undefined, 'a public client: nothing secret to hold');
  assert.deepEqual(oauth.dynamicClients(), [], 'nothing registered at the authorization server');

  const document = await (await front.fetch(documentUrl)).json();
  assert.equal(document.client_id, documentUrl);
  assert.deepEqual(document.redirect_uris, [`${front.url}/connections/${authorizerId}/callback`]);
  assert.equal(document.token_endpoint_auth_method, 'none');
  assert.equal((await platform.api.get(`/connections/${serverId}/client-metadata`)).status, 404, 'only for an authorizer using it');

  oauth.person = { decision: 'approve', account: 'olivia' };
  const fetched = front.paths.length;
  const page = await followAsBrowser(answer.body.connection.authorization_url, { fetch: front.fetch });
  assert.match(page.text, /data-outcome="connected"/, page.text);
  assert.ok(
    front.paths.slice(fetched).some((p) => p.endsWith('/client-metadata')),
    'the authorization server read the document',
  );

  const called = await owner.post(`/artifacts/${serverId}/invoke`, { name: 'whoami', arguments: {} });
  assert.equal(called.status, 200, called.text);
  assert.deepEqual(called.body.result.structuredContent, { sub: 'olivia' }, called.text);
});
