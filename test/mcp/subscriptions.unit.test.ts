// Which requests serveMcp hands to serveListen: a 2026-07-28 subscriptions/listen request only (its
// `_meta` envelope names the revision); a 2025-era one keeps going to the legacy server (-32601).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isListenRequest } from '../../src/mcp-server/subscriptions.js';

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'unit', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const listen = { jsonrpc: '2.0', id: 'listen:1', method: 'subscriptions/listen', params: { _meta: envelope, notifications: {} } };

describe('isListenRequest', () => {
  it('takes a 2026-07-28 subscriptions/listen request, whatever its filter', () => {
    assert.equal(isListenRequest(listen), true);
    assert.equal(isListenRequest({ ...listen, id: 7, params: { _meta: envelope } }), true, 'the SDK answers a missing filter');
  });

  it('leaves everything else to the SDK: a 2025-era listen, a notification, another method, a batch, junk', () => {
    assert.equal(isListenRequest({ ...listen, params: { notifications: {} } }), false, 'no envelope: 2025-era');
    assert.equal(isListenRequest({ jsonrpc: '2.0', method: 'subscriptions/listen', params: listen.params }), false, 'no id');
    assert.equal(isListenRequest({ ...listen, method: 'resources/subscribe' }), false);
    assert.equal(isListenRequest([listen]), false);
    for (const junk of [null, undefined, 'subscriptions/listen', 42]) assert.equal(isListenRequest(junk), false);
  });
});
