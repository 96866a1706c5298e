// A pulled stream's source (src/media/source.ts): every address its host resolves to is checked as the
// outbound HTTP client checks its targets, and ffmpeg is handed the checked address, never the name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkedSource, SourceRefused } from '../../src/media/source.js';

const refused = (url: string, allow = '', why?: RegExp) =>
  assert.rejects(checkedSource(url, null, allow), (err: unknown) => {
    assert.ok(err instanceof SourceRefused, String(err));
    if (why) assert.match(err.message, why);
    return true;
  });

describe('a pulled source', () => {
  it('is refused on loopback, private, link-local and reserved addresses, by name or literal', async () => {
    await refused('rtmp://127.0.0.1/live', '', /loopback/);
    await refused('rtmp://localhost/live', '', /loopback/);
    await refused('rtmp://10.1.2.3:1935/live', '', /private/);
    await refused('rtmp://192.168.0.10/live');
    await refused('rtmp://169.254.169.254/live', '', /link-local/i);
    await refused('rtmp://[::1]/live');
    await refused('rtmp://[::ffff:127.0.0.1]/live');
    await refused('rtmp://0.0.0.0/live');
    await refused('rtmp://no-such-host.invalid/live', '', /does not resolve/);
  });

  it('is handed to ffmpeg as the checked address, with the key as the stream name when there is one', async () => {
    assert.equal(await checkedSource('rtmp://127.0.0.1/live', 'abc', '127.0.0.0/8'), 'rtmp://127.0.0.1:1935/live/abc');
    assert.match(
      await checkedSource('rtmp://localhost:1940/app/inner/', null, '127.0.0.0/8,::1/128'),
      /^rtmp:\/\/(127\.0\.0\.1|\[::1\]):1940\/app\/inner$/,
    );
    assert.equal(await checkedSource('rtmps://[::1]/live', null, '::1/128'), 'rtmps://[::1]:443/live');
    assert.equal(await checkedSource('rtmp://93.184.216.34/live', 'k', ''), 'rtmp://93.184.216.34:1935/live/k');
  });
});
