// Which calls a bound authorizer's tokens may go to (review finding 4 of #35): the resources it names
// (its discovered resource, the `resource` of its auth_url) must each identify the call's endpoint.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundResources, targetIsBound } from '../../src/connections/binding.js';
import type { ArtifactDoc } from '../../src/store/artifacts.js';

const authorizer = (authUrl: string, context: Record<string, unknown> = {}) =>
  ({ content: JSON.stringify({ auth_url: authUrl }), context }) as unknown as ArtifactDoc;

describe('boundResources', () => {
  it('reads the discovered resource and the resource indicator of auth_url, once each', () => {
    const url = 'https://as.example/authorize?resource=https%3A%2F%2Fmcp.example%2Fmcp';
    assert.deepEqual(boundResources(authorizer(url, { discovered: { resource: 'https://mcp.example/mcp' } })), ['https://mcp.example/mcp']);
    assert.deepEqual(boundResources(authorizer('https://as.example/authorize', { discovered: { resource: 'https://a.example/' } })), [
      'https://a.example/',
    ]);
    assert.deepEqual(boundResources(authorizer(url)), ['https://mcp.example/mcp']);
  });

  it('binds nothing for a hand-made authorizer without a resource, or one that is gone', () => {
    assert.deepEqual(boundResources(authorizer('https://github.com/login/oauth/authorize')), []);
    assert.deepEqual(boundResources(null), []);
  });
});

describe('targetIsBound', () => {
  const bound = ['https://mcp.example/mcp'];
  it('takes the resource itself and paths under it', () => {
    assert.equal(targetIsBound(bound, { endpoint: new URL('https://mcp.example/mcp') }), true);
    assert.equal(targetIsBound(bound, { endpoint: new URL('https://mcp.example/mcp/v2') }), true);
    assert.equal(targetIsBound(['https://mcp.example'], { endpoint: new URL('https://mcp.example/anything') }), true);
  });

  it('refuses another origin, another path, and a server not called over http', () => {
    assert.equal(targetIsBound(bound, { endpoint: new URL('https://evil.example/mcp') }), false);
    assert.equal(targetIsBound(bound, { endpoint: new URL('http://mcp.example/mcp') }), false);
    assert.equal(targetIsBound(bound, { endpoint: new URL('https://mcp.example:8443/mcp') }), false);
    assert.equal(targetIsBound(bound, { endpoint: new URL('https://mcp.example/mcpx') }), false);
    assert.equal(targetIsBound(bound, { endpoint: new URL('https://mcp.example/other') }), false);
    assert.equal(targetIsBound(bound, null), false);
  });

  it('for a server found by its discovery document, judges the origin', () => {
    assert.equal(targetIsBound(bound, { origin: 'https://mcp.example' }), true);
    assert.equal(targetIsBound(bound, { origin: 'https://evil.example' }), false);
  });

  it('every resource named must agree', () => {
    assert.equal(targetIsBound([...bound, 'https://evil.example/mcp'], { endpoint: new URL('https://mcp.example/mcp') }), false);
  });

  it('an unbound authorizer goes anywhere, as before', () => {
    assert.equal(targetIsBound([], { endpoint: new URL('https://anywhere.example/') }), true);
    assert.equal(targetIsBound([], null), true);
  });
});
