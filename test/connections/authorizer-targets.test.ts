// An authorizer's auth_url and token_url are refused at registration when they point at loopback,
// private or metadata addresses, as MCP server URLs are (MCP_OUTBOUND_ALLOW lifts it, as in tests
// that run their own OAuth provider on 127.0.0.1).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const authorizerType = 'application/vnd.platform.authorizer+json';
const publicUrls = { auth_url: 'https://idp.example.com/authorize', token_url: 'https://idp.example.com/token' };

let strict: TestPlatform;
let lenient: TestPlatform;
before(async () => {
  [strict, lenient] = await Promise.all([
    startPlatform({}, { worker: false }),
    startPlatform({ MCP_OUTBOUND_ALLOW: '127.0.0.0/8' }, { worker: false }),
  ]);
});
after(() => Promise.all([strict.close(), lenient.close()]));

async function workspaceOf(user: Api): Promise<string> {
  return (await user.post('/workspaces', { name: 'oauth' })).body.id;
}

const authorizer = (workspace: string, urls: Partial<typeof publicUrls>) => ({
  title: 'provider',
  content_type: authorizerType,
  collection_id: workspace,
  content: JSON.stringify({ provider: 'p', ...publicUrls, ...urls, scopes: [], client_id: 'c', pkce: true }),
});

const fields = (reply: { body: { invalid_params?: { name: string }[] } }) => (reply.body.invalid_params ?? []).map((p) => p.name).sort();

describe('authorizer URLs at registration', () => {
  it('refuses a loopback auth_url or token_url, naming each field, and writes nothing', async () => {
    const alice = await strict.newUser();
    const ws = await workspaceOf(alice);
    const cases: [Partial<typeof publicUrls>, string[]][] = [
      [{ auth_url: 'http://127.0.0.1:9/authorize' }, ['content.auth_url']],
      [{ token_url: 'http://[::1]:9/token' }, ['content.token_url']],
      [
        { auth_url: 'http://localhost:9/a', token_url: 'http://169.254.169.254/latest/meta-data' },
        ['content.auth_url', 'content.token_url'],
      ],
      [{ token_url: 'http://10.0.0.7/token' }, ['content.token_url']],
    ];
    for (const [urls, expected] of cases) {
      const reply = await alice.post('/artifacts', authorizer(ws, urls));
      assert.equal(reply.status, 400, `${JSON.stringify(urls)}: ${reply.text}`);
      assert.equal(reply.body.type, 'urn:platform:problem:validation-error');
      assert.deepEqual(fields(reply), expected);
      assert.match(reply.body.detail, /The platform will not call .*MCP_OUTBOUND_ALLOW/);
    }
    const listed = await alice.get(`/artifacts?collection_id=${ws}`);
    assert.equal(listed.body.items.length, 0, 'nothing was written');
  });

  it('refuses an update that points an existing authorizer at loopback', async () => {
    const alice = await strict.newUser();
    const created = await alice.post('/artifacts', authorizer(await workspaceOf(alice), {}));
    assert.equal(created.status, 201, created.text);
    const content = JSON.stringify({
      provider: 'p',
      ...publicUrls,
      token_url: 'http://127.0.0.1:9/token',
      scopes: [],
      client_id: 'c',
      pkce: true,
    });
    const patched = await alice.patch(`/artifacts/${created.body.id}`, { content });
    assert.equal(patched.status, 400, patched.text);
    assert.deepEqual(fields(patched), ['content.token_url']);
  });

  it('accepts loopback where MCP_OUTBOUND_ALLOW lists it', async () => {
    const alice = await lenient.newUser();
    const reply = await alice.post(
      '/artifacts',
      authorizer(await workspaceOf(alice), { auth_url: 'http://127.0.0.1:9/authorize', token_url: 'http://127.0.0.1:9/token' }),
    );
    assert.equal(reply.status, 201, reply.text);
    const still = await alice.post('/artifacts', authorizer(await workspaceOf(alice), { token_url: 'http://[::1]:9/token' }));
    assert.equal(still.status, 400, 'only the listed range is allowed');
  });
});
