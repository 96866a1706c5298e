// A typed client compiles against the API (issue #32): openapi-typescript generates the types of a
// running platform's GET /openapi.json, and test/contract/client-script.ts, which reads the fields a
// client reads without a cast, must compile against them with `tsc --noEmit`. A route whose answer
// the document leaves undescribed gives `unknown` there, and the script does not compile.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { generatedTypesPath, generateTypes, typesOnly } from './generate.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const here = fileURLToPath(new URL('.', import.meta.url));
const tsc = resolve(here, '../../node_modules/typescript/bin/tsc');

let platform: TestPlatform;
let document: any;
const dirs: string[] = [];

before(async () => {
  platform = await startPlatform({}, { worker: false });
  const reply = await platform.api.get('/openapi.json');
  assert.equal(reply.status, 200);
  document = reply.body;
});
after(async () => {
  await platform?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Compiles the client script against the types generated from `doc`, as the repository's own settings would. */
async function compileClient(doc: object): Promise<{ ok: boolean; output: string; types: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'contract-client-'));
  dirs.push(dir);
  const types = await generateTypes(doc);
  writeFileSync(join(dir, 'openapi.ts'), types);
  copyFileSync(join(here, 'client-script.ts'), join(dir, 'client-script.ts'));
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    lib: ['ES2022', 'DOM'],
    types: [],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['client-script.ts'] }));
  return new Promise((done) =>
    execFile(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { timeout: 120_000 }, (err, stdout, stderr) =>
      done({ ok: !err, output: `${stdout}${stderr}`, types }),
    ),
  );
}

describe('the client generated from the OpenAPI document', () => {
  it('compiles the client script, which reads the answers without a cast', async () => {
    const { ok, output } = await compileClient(document);
    assert.ok(ok, output);
  });

  it('does not compile when a route leaves its answer undescribed, or a status undeclared', async () => {
    const broken = structuredClone(document);
    broken.paths['/me'].get.responses['200'].content['application/json'].schema = {};
    delete broken.paths['/workspaces/{id}/commits'].post.responses['202'];
    const { ok, output } = await compileClient(broken);
    assert.equal(ok, false, 'the script compiled against a document without those answers');
    assert.match(output, /'me' is of type 'unknown'/);
    assert.match(output, /Property 'id' does not exist on type 'never'/);
  });

  it('is the copy in clients/typescript/src/openapi.ts, which the client package and the script compile against', async () => {
    const fresh = typesOnly(await generateTypes(document));
    const copy = typesOnly(readFileSync(generatedTypesPath, 'utf8'));
    assert.ok(fresh === copy, 'clients/typescript/src/openapi.ts is out of date: run `node --import tsx test/contract/generate.ts`');
  });
});
