// How the embedded store names the engine's failures (src/store/postgres/engine.ts): a unique
// violation is MongoDB's E11000, anything that means "the engine is not answering now" (its own
// statement timeout, a refused or dropped socket while it restarts, pg's client-side timeout) is
// StorageUnavailableError (503), and a wrong statement stays what it is (500: a bug).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MongoServerError } from 'mongodb';
import { translateError } from '../../src/store/postgres/engine.js';
import { StorageUnavailableError } from '../../src/store/deadline.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} /tmp/s/.s.PGSQL.5432`), { code, syscall: 'connect' });

describe('embedded store errors', () => {
  it('makes a unique violation E11000', () => {
    const err = translateError(Object.assign(pgError('23505'), { constraint: 'artifacts__order_unique' }), 'db.artifacts.insertOne');
    assert.ok(err instanceof MongoServerError);
    assert.equal(err.code, 11000);
    assert.match(err.message, /artifacts__order_unique/);
  });

  it('makes a statement timeout, an administrator shutdown and a full server unavailable', () => {
    for (const code of ['57014', '57P01', '53300', '08006'])
      assert.ok(translateError(pgError(code), 'w') instanceof StorageUnavailableError, code);
  });

  it('makes the socket failures of a restarting server unavailable, not internal errors', () => {
    for (const code of ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'EAGAIN'])
      assert.ok(translateError(socketError(code), 'w') instanceof StorageUnavailableError, code);
    assert.ok(translateError(new Error('Query read timeout'), 'w') instanceof StorageUnavailableError);
    assert.ok(translateError(new Error('Connection terminated unexpectedly'), 'w') instanceof StorageUnavailableError);
  });

  it('leaves a wrong statement as it is', () => {
    const syntax = pgError('42601', 'syntax error at or near "x"');
    assert.equal(translateError(syntax, 'w'), syntax);
    const unsupported = new Error('the embedded PostgreSQL store does not support the query operator $where');
    assert.equal(translateError(unsupported, 'w'), unsupported);
  });
});
