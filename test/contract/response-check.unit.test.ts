// The checker behind responses.test.ts fails where the contract is broken: an undeclared field, a
// missing one, a wrong type, an undeclared success status. (Without engines: the document is built
// from the route table, as GET /openapi.json serves it.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routes } from '../../src/api/app.js';
import { buildDocument } from '../../src/api/openapi/document.js';
import type { Reply } from '../helpers/http.js';
import { ResponseChecker } from './response-check.js';

const document = buildDocument(routes, 'http://localhost:3000');
const reply = (status: number, body: unknown): Reply => ({
  status,
  headers: new Headers({ 'content-type': 'application/json; charset=utf-8' }),
  body,
  text: JSON.stringify(body),
});
const failuresOf = (method: string, path: string, r: Reply) => {
  const checker = new ResponseChecker(routes, document);
  checker.check(method, path, r);
  return checker.failures;
};

const secret = { id: '0190c1d2-7a4b-7c3d-8e9f-0a1b2c3d4e5f', name: 'crm-token', created_at: '2026-01-01T00:00:00.000Z' };

describe('the response checker', () => {
  it('passes an answer as declared, and finds its route by the table', () => {
    assert.deepEqual(failuresOf('GET', `/secrets/${secret.id}`, reply(200, secret)), []);
    assert.deepEqual(failuresOf('GET', '/secrets?limit=1', reply(200, { items: [secret] })), []);
  });

  it('fails an undeclared field, a missing one, a wrong type, a bad date', () => {
    assert.match(failuresOf('GET', `/secrets/${secret.id}`, reply(200, { ...secret, value: 's3cret' })).join(), /additional properties/);
    const { name: _name, ...nameless } = secret;
    assert.match(failuresOf('GET', `/secrets/${secret.id}`, reply(200, nameless)).join(), /must have required property 'name'/);
    assert.match(failuresOf('GET', `/secrets/${secret.id}`, reply(200, { ...secret, name: 7 })).join(), /must be string/);
    assert.match(failuresOf('GET', `/secrets/${secret.id}`, reply(200, { ...secret, created_at: 'yesterday' })).join(), /date-time/);
  });

  it('fails a success status the route does not declare, and checks each declared one with its own schema', () => {
    assert.match(failuresOf('GET', `/secrets/${secret.id}`, reply(202, secret)).join(), /declares no schema for this status/);
    const pending = { invocation_id: 'i', workflow_id: 'invocation-i', status: 'running', poll: '/invocations/i' };
    assert.deepEqual(failuresOf('POST', `/artifacts/${secret.id}/invoke`, reply(202, pending)), []);
    assert.notDeepEqual(failuresOf('POST', `/artifacts/${secret.id}/invoke`, reply(200, pending)), []);
  });
});
