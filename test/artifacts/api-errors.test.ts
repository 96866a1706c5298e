import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let admin: Api;
let workspaceId: string;

const artifactCount = () => platform.services.db.collection('artifacts').countDocuments();

function assertProblem(reply: { status: number; headers: Headers; body: any; text: string }, status: number, slug: string) {
  assert.equal(reply.status, status, reply.text);
  assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(reply.body.type, `urn:platform:problem:${slug}`);
  assert.equal(reply.body.status, status);
  assert.equal(typeof reply.body.title, 'string');
  assert.ok(reply.body.request_id, 'problem carries the request id');
  assert.doesNotMatch(reply.text, /at .*\.(ts|js):\d+/, 'no stack trace reaches the client');
}

before(async () => {
  platform = await startPlatform({ MAX_BODY_BYTES: '4096' }, { worker: false });
  admin = await platform.admin();
  workspaceId = (await admin.post('/workspaces', { name: 'errors' })).body.id;
});
after(() => platform.close());

describe('HTTP error handling', () => {
  it('answers an unknown route with a 404 problem', async () => {
    assertProblem(await admin.get('/no/such/route'), 404, 'route-not-found');
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const reply = await admin.request('PUT', '/artifacts', { body: {} });
    assertProblem(reply, 405, 'method-not-allowed');
    assert.deepEqual(reply.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD', 'POST']);
  });

  it('answers other methods on /artifacts/search with 405, not an id error', async () => {
    const reply = await admin.get('/artifacts/search');
    assertProblem(reply, 405, 'method-not-allowed');
    assert.equal(reply.headers.get('allow'), 'POST');
  });

  it('rejects malformed JSON with 400 and writes nothing', async () => {
    const before = await artifactCount();
    const reply = await admin.request('POST', '/artifacts', { raw: '{"title": "x",', headers: { 'content-type': 'application/json' } });
    assertProblem(reply, 400, 'malformed-json');
    assert.equal(await artifactCount(), before);
  });

  it('rejects a body that is not JSON with 415', async () => {
    const reply = await admin.request('POST', '/artifacts', { raw: 'title=x', headers: { 'content-type': 'text/plain' } });
    assertProblem(reply, 415, 'unsupported-media-type');
  });

  it('rejects an oversize body with 413, declared or streamed, and writes nothing', async () => {
    const before = await artifactCount();
    const big = { title: 'big', content_type: 'text/plain', content: 'x'.repeat(8000), collection_id: workspaceId };
    assertProblem(await admin.post('/artifacts', big), 413, 'payload-too-large');
    // Chunked, with no Content-Length: the limit is enforced while reading.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${platform.url}/artifacts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => (res.resume(), resolve(res.statusCode!)));
      req.on('error', reject);
      for (let i = 0; i < 8; i++) req.write(JSON.stringify(big).slice(i * 1000, (i + 1) * 1000));
      req.end();
    });
    assert.equal(status, 413);
    assert.equal(await artifactCount(), before);
  });

  it('rejects unknown and missing fields, naming them', async () => {
    const before = await artifactCount();
    const reply = await admin.post('/artifacts', { title: 'x', content_type: 'text/plain', collection_id: workspaceId, colour: 'red' });
    assertProblem(reply, 400, 'validation-error');
    const names = reply.body.invalid_params.map((p: { name: string }) => p.name);
    assert.ok(names.includes('content'), `content named in ${names}`);
    assert.equal(await artifactCount(), before);
  });

  it('rejects ids that are not UUIDs with 400, and unknown UUIDs with 404', async () => {
    assertProblem(await admin.get('/artifacts/not-a-uuid'), 400, 'validation-error');
    assertProblem(await admin.get('/workspaces/42'), 400, 'validation-error');
    assertProblem(await admin.get('/artifacts/0190b5a0-0000-7000-8000-000000000000'), 404, 'not-found');
    assertProblem(await admin.patch('/artifacts/0190b5a0-0000-7000-8000-000000000000', { title: 'y' }), 404, 'not-found');
  });

  it('rejects an invalid cursor and an over-limit page size', async () => {
    assertProblem(await admin.get('/artifacts?cursor=bogus'), 400, 'validation-error');
    assertProblem(await admin.get('/artifacts?limit=100000'), 400, 'validation-error');
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const kept = await admin.get('/healthz', { 'x-request-id': 'abc-123' });
    assert.equal(kept.headers.get('x-request-id'), 'abc-123');
    const replaced = await admin.get('/healthz', { 'x-request-id': 'bad id\twith spaces' });
    assert.notEqual(replaced.headers.get('x-request-id'), 'bad id\twith spaces');
  });
});
