// The Web UI's settings as temporal-dev/ui-proxy.ts serves them: "include credentials" on codec calls
// when the dev server names a codec endpoint, and nothing else changed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withCredentials } from '../../temporal-dev/ui-proxy.js';

describe('the Web UI settings behind the dev proxy', () => {
  it('turns on IncludeCredentials when a codec endpoint is set, keeping every other setting', () => {
    const settings = {
      Auth: { Enabled: false },
      Codec: { Endpoint: 'http://localhost:8080/codec/session', PassAccessToken: false },
      Version: '2.54.1',
    };
    assert.deepEqual(JSON.parse(withCredentials(JSON.stringify(settings))), {
      ...settings,
      Codec: { ...settings.Codec, IncludeCredentials: true },
    });
  });

  it('leaves settings without a codec endpoint, and what is not JSON, as they are', () => {
    for (const body of [JSON.stringify({ Codec: { Endpoint: '' } }), JSON.stringify({ Version: '2.54.1' }), 'null', '<html>']) {
      assert.equal(withCredentials(body), body);
    }
  });
});
