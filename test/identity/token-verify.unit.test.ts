// Access-token verification keeps the tokens it has verified (the same token comes with every request
// of a client), and a kept token still stops at its expiry, for another audience, and once its key is
// no longer published.
import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { generateKeyPair, type CryptoKey } from 'jose';
import type { SigningKeys } from '../../src/identity/signing-keys.js';
import { TokenService } from '../../src/identity/tokens.js';

const issuer = 'https://platform.test';
const { publicKey, privateKey } = await generateKeyPair('RS256');
let published = true;
const keys = {
  signingKey: async () => ({ kid: 'k1', privateKey }),
  verificationKey: async (kid: string) => (kid === 'k1' && published ? (publicKey as CryptoKey) : null),
} as unknown as SigningKeys;

afterEach(() => {
  published = true;
  mock.timers.reset();
});

describe('verified tokens', () => {
  it('a token verified once is accepted again with the same claims; a forged one is not', async () => {
    const tokens = new TokenService(keys, issuer, 600);
    const { access_token } = await tokens.issue('person-1');
    const first = await tokens.verify(access_token);
    assert.deepEqual(await tokens.verify(access_token), first);
    const [head, body, sig] = access_token.split('.');
    const forged = `${head}.${body}.${sig!.slice(0, -4)}${sig!.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    await assert.rejects(tokens.verify(forged), /signature is invalid|token is invalid/);
  });

  it('another audience is checked on its own', async () => {
    const tokens = new TokenService(keys, issuer, 600);
    const { access_token } = await tokens.issue('person-1');
    await tokens.verify(access_token);
    await assert.rejects(tokens.verify(access_token, 'https://platform.test/mcp'), /claim aud is invalid/);
  });

  it('a kept token stops at its expiry', async () => {
    const tokens = new TokenService(keys, issuer, 60);
    const { access_token } = await tokens.issue('person-1');
    await tokens.verify(access_token);
    mock.timers.enable({ apis: ['Date'], now: Date.now() + 61_000 });
    await assert.rejects(tokens.verify(access_token), /token has expired/);
  });

  it('a kept token stops once its key is no longer published', async () => {
    const tokens = new TokenService(keys, issuer, 600);
    const { access_token } = await tokens.issue('person-1');
    await tokens.verify(access_token);
    published = false;
    await assert.rejects(tokens.verify(access_token), /unknown key/);
  });
});
