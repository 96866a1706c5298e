// The development default of the outbound guard (issue #37): loopback reachable in development,
// refused in production, MCP_OUTBOUND_LOOPBACK deciding either way; never private, link-local or
// metadata addresses. The guard itself is exercised against real servers on 127.0.0.1.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/kernel/config/env.js';
import { addressChecker } from '../../src/net/addresses.js';
import { loopbackRanges, outboundAllowList, outboundLine } from '../../src/net/allow-list.js';
import { createOutbound, OutboundRefusedError } from '../../src/net/outbound.js';

const production = {
  PLATFORM_ENV: 'production',
  STORE_URI: 'postgres://db/platform',
  TEMPORAL_ADDRESS: 'temporal:7233',
  PLATFORM_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
};

describe('MCP_OUTBOUND_LOOPBACK', () => {
  it('is on in development and off in production unless set', () => {
    assert.equal(loadConfig({}).outboundLoopback, true);
    assert.equal(loadConfig({ PLATFORM_ENV: 'development' }).outboundLoopback, true);
    assert.equal(loadConfig({ MCP_OUTBOUND_LOOPBACK: 'false' }).outboundLoopback, false);
    assert.equal(loadConfig({ MCP_OUTBOUND_LOOPBACK: '' }).outboundLoopback, true, 'empty is unset');
    assert.equal(loadConfig(production).outboundLoopback, false);
    assert.equal(loadConfig({ ...production, MCP_OUTBOUND_LOOPBACK: 'true' }).outboundLoopback, true);
    // A development platform that answers other machines does not open this machine's loopback to them.
    for (const HOST of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]'])
      assert.equal(loadConfig({ HOST }).outboundLoopback, true, HOST);
    for (const HOST of ['0.0.0.0', '::', '192.168.1.20', 'dev.example.org', '127.0.0.1.example.org']) {
      assert.equal(loadConfig({ HOST }).outboundLoopback, false, HOST);
    }
    assert.equal(loadConfig({ HOST: '0.0.0.0', MCP_OUTBOUND_LOOPBACK: 'true' }).outboundLoopback, true);
  });

  it('refuses a value that is not a boolean with one line', () => {
    assert.throws(
      () => loadConfig({ MCP_OUTBOUND_LOOPBACK: 'sometimes' }),
      (err: Error) => err instanceof ConfigError && /^invalid configuration: MCP_OUTBOUND_LOOPBACK: /.test(err.message),
    );
  });

  it('adds loopback, and only loopback, to MCP_OUTBOUND_ALLOW', () => {
    assert.deepEqual(outboundAllowList(loadConfig({})), ['127.0.0.0/8', '::1/128']);
    assert.deepEqual(outboundAllowList(loadConfig(production)), []);
    assert.deepEqual(outboundAllowList(loadConfig({ MCP_OUTBOUND_ALLOW: '10.1.0.0/16' })), ['10.1.0.0/16', ...loopbackRanges]);
    assert.deepEqual(outboundAllowList(loadConfig({ ...production, MCP_OUTBOUND_ALLOW: '10.1.0.0/16' })), ['10.1.0.0/16']);

    const development = addressChecker(outboundAllowList(loadConfig({})));
    for (const address of ['127.0.0.1', '127.45.6.7', '::1', '[::1]', '::ffff:127.0.0.1']) {
      assert.equal(development(address), undefined, `${address} is reachable in development`);
    }
    const stillRefused: [string, RegExp][] = [
      ['169.254.169.254', /link-local/],
      ['10.0.0.7', /private/],
      ['192.168.1.1', /private/],
      ['172.16.0.1', /private/],
      ['100.64.0.1', /shared/i],
      ['0.0.0.0', /this host|this network/i],
      ['fe80::1', /link-local/i],
      ['fd00::1', /unique/i],
      ['::ffff:10.0.0.7', /embedding 10\.0\.0\.7/],
      ['::ffff:169.254.169.254', /embedding 169\.254\.169\.254/],
    ];
    for (const [address, why] of stillRefused) assert.match(development(address) ?? 'reachable', why, `${address} stays refused`);

    const strict = addressChecker(outboundAllowList(loadConfig(production)));
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) assert.match(strict(address) ?? 'reachable', /loopback/);
  });

  it('is said at start', () => {
    assert.equal(outboundLine(loadConfig({})), 'loopback allowed (development); production refuses it unless MCP_OUTBOUND_ALLOW lists it');
    assert.equal(outboundLine(loadConfig({ MCP_OUTBOUND_LOOPBACK: 'false' })), 'loopback refused (MCP_OUTBOUND_LOOPBACK=false)');
    assert.equal(outboundLine(loadConfig(production)), 'loopback refused (production)');
    assert.equal(
      outboundLine(loadConfig({ HOST: '0.0.0.0' })),
      'loopback refused (development, but HOST=0.0.0.0 answers other machines; MCP_OUTBOUND_LOOPBACK=true allows it)',
    );
    assert.equal(
      outboundLine(loadConfig({ ...production, MCP_OUTBOUND_LOOPBACK: 'true', MCP_OUTBOUND_ALLOW: '10.1.0.0/16' })),
      'loopback allowed (MCP_OUTBOUND_LOOPBACK=true); also 10.1.0.0/16 (MCP_OUTBOUND_ALLOW)',
    );
  });
});

describe('the guarded client with the development and production lists', () => {
  const server = createServer((_req, res) => res.end('{"ok": true}'));
  after(() => server.close());

  it('reaches a server on 127.0.0.1 in development and refuses it in production', async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const policy = { timeoutMs: 2000, maxResponseBytes: 4096 };
    const dev = createOutbound({ ...policy, allow: outboundAllowList(loadConfig({})) });
    const prod = createOutbound({ ...policy, allow: outboundAllowList(loadConfig(production)) });
    try {
      assert.deepEqual(await dev.fetchJson(url), { status: 200, body: { ok: true } });
      await assert.rejects(
        prod.fetchJson(url),
        (err: Error) =>
          err instanceof OutboundRefusedError && /^127\.0\.0\.1 is a loopback address .*; set MCP_OUTBOUND_ALLOW/.test(err.message),
      );
      await assert.rejects(dev.check('http://169.254.169.254/latest/meta-data'), OutboundRefusedError);
    } finally {
      await Promise.all([dev.close(), prod.close()]);
    }
  });
});
