// Builds credentials through the real API, for tests that act as servers and API keys.
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { Api } from './http.js';

export interface ServerCredential {
  client_id: string;
  client_secret: string;
}

export async function createServerCredential(
  owner: Api,
  scopes: string[],
  resource_filters?: Record<string, unknown>,
): Promise<ServerCredential> {
  const chosen = `srv-${randomBytes(4).toString('hex')}`;
  const reply = await owner.post('/server-credentials', {
    client_id: chosen,
    name: 'test server',
    server_id: 'server-1',
    host_id: 'host-1',
    scopes,
    ...(resource_filters ? { resource_filters } : {}),
  });
  assert.equal(reply.status, 201, reply.text);
  // The client_id is the chosen name in the owner's namespace: the answer's is the one to use.
  return { client_id: reply.body.client_id, client_secret: reply.body.client_secret };
}

export async function exchange(url: string, cred: ServerCredential, extra: Record<string, string> = {}) {
  const res = await fetch(`${url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...cred, ...extra }),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** An Api signed in as the server credential. */
export async function asServer(url: string, cred: ServerCredential): Promise<Api> {
  const reply = await exchange(url, cred);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return new Api(url, reply.body.access_token);
}

export async function createApiKey(
  owner: Api,
  scopes: string[],
  resource_filters?: Record<string, unknown>,
): Promise<{ id: string; key: string }> {
  const reply = await owner.post('/api-keys', { name: 'test key', scopes, ...(resource_filters ? { resource_filters } : {}) });
  assert.equal(reply.status, 201, reply.text);
  return { id: reply.body.id, key: reply.body.key };
}
