// The parts of outbound OAuth discovery that judge what a remote server said: its Bearer challenge
// (RFC 6750 §3, RFC 9728 §5.1), the https rule for every URL it names, and the scopes asked for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerChallenge, DiscoveryFailed, scopesFor, secureUrl } from '../../src/connections/discovery.js';

describe('bearerChallenge', () => {
  it('reads quoted and bare auth-params, names lower-cased', () => {
    assert.deepEqual(bearerChallenge('Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", Scope="x y"'), {
      resource_metadata: 'https://a.example/.well-known/oauth-protected-resource',
      scope: 'x y',
    });
    assert.deepEqual(bearerChallenge('Bearer error=invalid_token'), { error: 'invalid_token' });
    assert.deepEqual(bearerChallenge('Bearer'), {});
  });

  it('finds the Bearer challenge among others, and stops where the next one starts', () => {
    assert.deepEqual(bearerChallenge('Basic realm="x", Bearer realm="mcp", scope="a" , DPoP algs="ES256"'), { realm: 'mcp', scope: 'a' });
    assert.deepEqual(bearerChallenge('Bearer error="invalid_token", error_description="say \\"no\\""'), {
      error: 'invalid_token',
      error_description: 'say "no"',
    });
  });

  it('is null without a Bearer challenge', () => {
    assert.equal(bearerChallenge(null), null);
    assert.equal(bearerChallenge('Basic realm="x"'), null);
    assert.equal(bearerChallenge('NotBearer x="y"'), null);
  });
});

describe('secureUrl', () => {
  const dev = { isDev: true };
  const prod = { isDev: false };
  it('takes https always, plain http only for loopback in development', () => {
    assert.equal(secureUrl(prod, 'https://as.example/authorize', 'x').host, 'as.example');
    assert.equal(secureUrl(dev, 'http://127.0.0.1:8080/x', 'x').port, '8080');
    assert.equal(secureUrl(dev, 'http://localhost/x', 'x').hostname, 'localhost');
    assert.equal(secureUrl(dev, 'http://[::1]:9/x', 'x').hostname, '[::1]');
  });
  it('refuses http elsewhere, loopback in production, and other schemes', () => {
    for (const [deps, url] of [
      [dev, 'http://as.example/authorize'],
      [dev, 'http://10.0.0.1/authorize'],
      [prod, 'http://127.0.0.1/authorize'],
      [dev, 'javascript:alert(1)'],
      [dev, 'not a url'],
    ] as const) {
      assert.throws(
        () => secureUrl(deps, url, 'The endpoint'),
        (err: unknown) => err instanceof DiscoveryFailed && err.code === 'metadata-unusable',
        url,
      );
    }
  });
});

describe('scopesFor', () => {
  const resource = {
    resource: 'https://mcp.example/mcp',
    authorization_servers: ['https://as.example'],
    scopes_supported: ['read', 'write'],
  };
  const as = {
    issuer: 'https://as.example',
    authorization_endpoint: 'https://as.example/authorize',
    token_endpoint: 'https://as.example/token',
    scopes_supported: ['read', 'write', 'offline_access'],
  };
  it("asks for the challenge's scopes first, else the resource's, with offline_access where offered", () => {
    assert.deepEqual(scopesFor({ scope: ['read'] }, resource, as), ['read', 'offline_access']);
    assert.deepEqual(scopesFor({}, resource, as), ['read', 'write', 'offline_access']);
    assert.deepEqual(scopesFor({}, resource, { ...as, scopes_supported: ['read'] }), ['read', 'write']);
    assert.deepEqual(scopesFor({}, resource, { ...as, grant_types_supported: ['authorization_code'] }), ['read', 'write']);
    assert.deepEqual(scopesFor({}, { ...resource, scopes_supported: undefined }, { ...as, scopes_supported: [] }), []);
  });
});
