import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { KeyRing } from '../../src/kernel/crypto/envelope.js';
import { SecretStore } from '../../src/store/secrets.js';
import { eventually, type Api, type Reply } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { openedHistory } from '../helpers/history.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
const responses: string[] = [];

/** Every response after the secret's creation is kept, to check none carries the value. */
function keep(reply: Reply): Reply {
  responses.push(reply.text);
  return reply;
}

before(async () => {
  platform = await startPlatform({ ALLOW_STDIO_MCP_SERVERS: 'true' });
  alice = await platform.newUser();
});
after(() => platform.close());

const mcpServer = 'application/vnd.platform.mcp-server+json';

/** A history as text, with every payload's bytes decoded, so a search sees what Temporal stored. */
function readable(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (Array.isArray(value)) return value.map(readable).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(readable).join('\n');
  return String(value);
}

describe('secrets', () => {
  it('never shows the value again, nor stores, logs or sends it to Temporal', async () => {
    const plaintext = `sk-live-${randomBytes(16).toString('hex')}`;
    const created = await alice.post('/secrets', { name: 'GITHUB_TOKEN', value: plaintext });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), ['created_at', 'id', 'name']);
    const id = created.body.id;

    keep(await alice.get('/secrets'));
    keep(await alice.get(`/secrets/${id}`));
    const ws = keep(await alice.post('/workspaces', { name: 'servers' })).body.id;
    const server = keep(
      await alice.post('/artifacts', {
        title: 'github',
        content_type: mcpServer,
        content: JSON.stringify({
          transport: { type: 'stdio', catalog_entry: 'everything-with-secrets', env: { GITHUB_TOKEN: { secret_id: id } } },
        }),
        collection_id: ws,
      }),
    );
    assert.equal(server.status, 201, server.text);
    keep(await alice.patch(`/artifacts/${server.body.id}`, { title: 'github (2)' }));
    keep(await alice.get(`/artifacts/${server.body.id}`));
    keep(await alice.get(`/workspaces/${ws}/events`));

    for (const text of responses) assert.ok(!text.includes(plaintext), 'no API response carries the value');
    assert.ok(!platform.logs.join('').includes(plaintext), 'no log line carries the value');

    const collections = await platform.services.db.listCollections().toArray();
    for (const { name } of collections) {
      const docs = await platform.services.db.collection(name).find().toArray();
      assert.ok(!JSON.stringify(docs).includes(plaintext), `no document in ${name} carries the value`);
    }
    const stored = await platform.services.db.collection('secrets').findOne({ _id: id });
    assert.deepEqual(Object.keys(stored!.envelope).sort(), ['dek', 'value']);

    // The event workflow ran for these writes: its whole history must not carry the value either.
    const histories = await eventually(
      async () => {
        const found = [];
        for await (const run of platform.services.temporal.workflow.list({ query: `WorkspaceId = "${ws}"` })) {
          found.push(readable(await openedHistory(platform, run.workflowId, run.runId)));
        }
        return found.length > 0 && found.some((h) => h.includes(server.body.id)) ? found : undefined;
      },
      20_000,
      'the event workflow history',
    );
    for (const history of histories) assert.ok(!history.includes(plaintext), 'no Temporal history carries the value');

    assert.equal(await platform.services.secrets.reveal(alice.userId, id), plaintext, 'only the store opens it');
  });

  it('belongs to its owner', async () => {
    const bob = await platform.newUser();
    const id = (await alice.post('/secrets', { name: 'mine', value: 'v' })).body.id;
    assert.equal((await bob.get(`/secrets/${id}`)).status, 404);
    assert.equal((await bob.delete(`/secrets/${id}`)).status, 404);
    assert.ok(!(await bob.get('/secrets')).body.items.some((s: { id: string }) => s.id === id));
    assert.equal((await alice.delete(`/secrets/${id}`)).status, 204);
    assert.equal((await alice.get(`/secrets/${id}`)).status, 404);
  });

  it('refuses an empty value and an unknown field', async () => {
    assert.equal((await alice.post('/secrets', { name: 'x', value: '' })).status, 400);
    assert.equal((await alice.post('/secrets', { name: 'x', value: 'v', owner_id: 'someone' })).status, 400);
  });

  it("must exist and be the writer's when an artifact references it", async () => {
    const bob = await platform.newUser();
    const bobs = (await bob.post('/secrets', { name: 'bob', value: 'b' })).body.id;
    const ws = (await alice.post('/workspaces', { name: 'refs' })).body.id;
    const content = (secretId: string) =>
      JSON.stringify({ transport: { type: 'stdio', catalog_entry: 'everything-with-secrets', env: { KEY: { secret_id: secretId } } } });
    const before = await platform.services.db.collection('artifacts').countDocuments();
    for (const secretId of [bobs, '0190b5a0-0000-7000-8000-000000000000']) {
      const reply = await alice.post('/artifacts', { title: 's', content_type: mcpServer, content: content(secretId), collection_id: ws });
      assert.equal(reply.status, 400);
      assert.equal(reply.body.invalid_params[0].name, 'content.transport.env.KEY');
    }
    assert.equal(await platform.services.db.collection('artifacts').countDocuments(), before);
  });
});

describe('collections carry only secret references', () => {
  it('refuses to commit static credentials into a collection, and accepts references', async () => {
    const ws = (await alice.post('/workspaces', { name: 'servers to share' })).body.id;
    const col = (await alice.post('/collections', { name: 'shared servers' })).body.id;
    const secret = (await alice.post('/secrets', { name: 'api', value: 'v' })).body.id;
    const server = async (auth: unknown) => {
      const content = JSON.stringify({ transport: { type: 'http', url: 'https://mcp.example.com/mcp' }, auth });
      const reply = await alice.post('/artifacts', { title: 's', content_type: mcpServer, content, collection_id: ws });
      assert.equal(reply.status, 201, reply.text);
      return reply.body.id as string;
    };
    const stat = await server({ type: 'static', header: 'Authorization', value: 'Bearer x' });
    const ref = await server({ type: 'api_key', secret_id: secret, header: 'Authorization' });
    const preview = await alice.post(`/workspaces/${ws}/commit-preview`, { collection_id: col });
    assert.equal(preview.status, 200, preview.text);
    const why = new Map(
      preview.body.items.map((i: { source_artifact_id: string; not_committable?: string }) => [i.source_artifact_id, i.not_committable]),
    );
    assert.match(String(why.get(stat)), /raw secrets/);
    assert.equal(why.get(ref), undefined);
    const refused = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'share', artifact_ids: [stat] });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.invalid_params[0].name, `artifact ${stat}`);
    assert.equal(
      (await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'share', artifact_ids: [ref] })).status,
      202,
    );
    const direct = await alice.post('/artifacts', {
      title: 's',
      content_type: mcpServer,
      content: JSON.stringify({ transport: { type: 'http', url: 'https://mcp.example.com/mcp' } }),
      collection_id: col,
    });
    assert.equal(direct.status, 409, 'nothing goes into a collection but by commit');
  });
});

describe('key-encryption key rotation', () => {
  it('opens what older keys sealed, and refuses without them', async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const oldStore = new SecretStore(platform.services.db, new KeyRing(oldKey));
    const secret = await oldStore.create(alice.userId, 'rotating', 'value sealed under the old key');
    const rotated = new SecretStore(platform.services.db, new KeyRing(newKey, [oldKey]));
    assert.equal(await rotated.reveal(alice.userId, secret._id), 'value sealed under the old key');
    const resealed = await rotated.create(alice.userId, 'new', 'v2');
    const stored = await platform.services.db.collection('secrets').findOne({ _id: resealed._id as never });
    assert.equal(stored!.envelope.dek.kid, KeyRing.kidOf(newKey));
    const forgotten = new SecretStore(platform.services.db, new KeyRing(newKey));
    await assert.rejects(() => forgotten.reveal(alice.userId, secret._id), /no key-encryption key/);
  });
});
