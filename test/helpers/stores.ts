// The stores the engine tests run against: the harness's, and FerretDB (MongoDB wire) when the
// harness's is not already it, so what the platform relies on is checked on both engines it supports.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { startPrivateEngine, type PrivateEngine } from './private-engine.js';

const harnessUri = process.env.TEST_STORE_URI;
const ferretInstalled = existsSync(resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'bin', 'ferretdb'));

export interface TestStore {
  name: string;
  skip: string | false;
  uri: () => Promise<{ uri: string; stop?: () => Promise<void> }>;
}

/** The stores to check: the harness's, and FerretDB (MongoDB wire) when the harness's is not already it. */
export const testStores: TestStore[] = [
  {
    name: 'the store the harness started',
    skip: !harnessUri && 'TEST_STORE_URI is not set: run with `npm test`',
    uri: async () => ({ uri: harnessUri! }),
  },
  {
    name: 'FerretDB (MongoDB wire)',
    skip:
      (!harnessUri && 'TEST_STORE_URI is not set: run with `npm test`') ||
      (harnessUri?.startsWith('mongodb') && 'the harness store already speaks the MongoDB wire protocol') ||
      (!ferretInstalled && 'FerretDB is not installed (temporal-dev/install.sh builds it when Go is present)'),
    uri: async () => {
      const previous = process.env.EMBEDDED_STORE;
      process.env.EMBEDDED_STORE = 'ferretdb';
      let engine: PrivateEngine;
      try {
        engine = await startPrivateEngine();
      } finally {
        if (previous === undefined) delete process.env.EMBEDDED_STORE;
        else process.env.EMBEDDED_STORE = previous;
      }
      return { uri: engine.uri, stop: () => engine.stop() };
    },
  },
];
