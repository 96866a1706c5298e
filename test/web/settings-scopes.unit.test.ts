// The settings forms offer every scope the API knows (issue #37: the key form lacked
// events:subscribe): the console's list is the backend's, in its order, each with words of its own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scopes } from '../../src/identity/principal.js';
import { offeredScopes } from '../../web/console/settings-scopes.js';

describe("the console's scopes", () => {
  it("are the API's scopes, every one described", () => {
    assert.deepEqual(
      offeredScopes.map(([scope]) => scope),
      [...scopes],
    );
    assert.ok(offeredScopes.some(([scope]) => scope === 'events:subscribe'));
    for (const [scope, what] of offeredScopes) assert.ok(what.trim().length > 0, `${scope} says what it grants`);
  });
});
