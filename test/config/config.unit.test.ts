import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ConfigError, envSchema, loadConfig } from '../../src/kernel/config/env.js';

describe('configuration', () => {
  it('applies defaults', () => {
    const config = loadConfig({});
    assert.equal(config.PORT, 8080);
    assert.equal(config.apiUri, 'http://localhost:8080');
    assert.equal(config.ACCESS_TOKEN_TTL_SECONDS, 3600);
    assert.equal(config.ALLOW_STDIO_MCP_SERVERS, false);
    assert.equal(config.isDev, true);
  });

  const bad: [Record<string, string>, RegExp][] = [
    [{ PORT: 'eighty' }, /^invalid configuration: PORT: /],
    [{ PORT: '70000' }, /^invalid configuration: PORT: /],
    [{ MONGODB_URI: 'postgres://x' }, /^invalid configuration: MONGODB_URI: must be a mongodb/],
    [{ TEMPORAL_ADDRESS: 'no-port' }, /^invalid configuration: TEMPORAL_ADDRESS: must be host:port/],
    [{ ALLOW_STDIO_MCP_SERVERS: 'maybe' }, /^invalid configuration: ALLOW_STDIO_MCP_SERVERS: /],
    [{ PLATFORM_MASTER_KEY: 'c2hvcnQ=' }, /^invalid configuration: PLATFORM_MASTER_KEY: must be 32 bytes/],
    [{ PLATFORM_ENV: 'production' }, /^invalid configuration: STORE_URI: required when PLATFORM_ENV=production/],
  ];
  for (const [env, message] of bad) {
    it(`refuses ${JSON.stringify(env)} with one clear line`, () => {
      assert.throws(
        () => loadConfig(env),
        (err: Error) => err instanceof ConfigError && message.test(err.message) && !err.message.includes('\n'),
      );
    });
  }

  it('stops the API at start-up with one line on a bad value', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/api.ts'], {
      env: { ...process.env, PORT: 'eighty' },
      encoding: 'utf8',
    });
    assert.equal(run.status, 1);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(run.stderr, /^invalid configuration: PORT: /);
  });

  it('documents every variable in .env.example', () => {
    const example = readFileSync('.env.example', 'utf8');
    for (const name of Object.keys(envSchema.shape)) assert.match(example, new RegExp(`^#? ?${name}=`, 'm'), `${name} in .env.example`);
  });
});
