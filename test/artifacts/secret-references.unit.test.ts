// Which stored secrets typed content names, so that a write naming another person's secret (or none
// that exists) is refused with a 400 before anything is stored (operations/artifacts.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { secretReferences } from '../../src/artifacts/content-types/index.js';

const streamType = 'application/vnd.platform.stream+json';
const secret = '01a21e5f-0000-7000-8000-000000000001';

describe('secret references', () => {
  it("names a stream's key secret", () => {
    const content = JSON.stringify({ source: { mode: 'push' }, key_secret_id: secret, record: { metadata: true } });
    assert.deepEqual(secretReferences(streamType, content), [{ id: secret, field: 'content.key_secret_id' }]);
  });

  it('names none for a pulled stream without a key', () => {
    const content = JSON.stringify({ source: { mode: 'pull', url: 'rtmp://camera.example/live' }, record: { metadata: true } });
    assert.deepEqual(secretReferences(streamType, content), []);
  });

  it("names an authorizer's client secret, and none when it has none", () => {
    const type = 'application/vnd.platform.authorizer+json';
    assert.deepEqual(secretReferences(type, JSON.stringify({ secret_id: secret })), [{ id: secret, field: 'content.secret_id' }]);
    assert.deepEqual(secretReferences(type, JSON.stringify({})), []);
  });
});
