// The project's dependency rules (.dependency-cruiser.cjs) hold on the tree, and they do catch what
// they are for: each deliberate violation below, made in a copy of the tree, fails its rule.
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

const root = resolve(import.meta.dirname, '../..');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Runs dependency-cruiser over folders of `dir` with the project's rules; the violations it reports. */
function cruise(dir: string, folders = ['src']): Violation[] {
  const run = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      ...folders,
      '--config',
      '.dependency-cruiser.cjs',
      '--output-type',
      'json',
    ],
    {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    },
  );
  assert.ok(run.stdout, `dependency-cruiser printed nothing: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('dependency rules', () => {
  it('hold on the tree: no cycle (type-only imports included), no import against the layer order', () => {
    const violations = cruise(root, ['src', 'test', 'bench', 'scripts', 'temporal-dev']);
    assert.deepEqual(
      violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`),
      [],
    );
  });

  describe('catch a deliberate violation', () => {
    let copy: string;
    before(() => {
      copy = mkdtempSync(join(tmpdir(), 'dependency-rules-'));
      cpSync(join(root, 'src'), join(copy, 'src'), { recursive: true });
      for (const file of ['.dependency-cruiser.cjs', 'tsconfig.json', 'package.json']) cpSync(join(root, file), join(copy, file));
      symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
      // One file per broken rule, each importing what its layer may not.
      writeFileSync(join(copy, 'src/activities/bad-workflow-import.ts'), "export { agentRun } from '../workflows/agent-run.js';\n");
      writeFileSync(join(copy, 'src/operations/bad-api-import.ts'), "export { idParam } from '../api/validate.js';\n");
      writeFileSync(join(copy, 'src/mcp-client/bad-server-import.ts'), "export { serverInfo } from '../mcp-server/server.js';\n");
      writeFileSync(join(copy, 'src/store/bad-operations-import.ts'), "export { afterApiWrite } from '../operations/artifacts.js';\n");
      writeFileSync(join(copy, 'src/workflows/bad-io.ts'), "export { ArtifactStore } from '../store/artifacts.js';\n");
      writeFileSync(join(copy, 'src/workflows/bad-package.ts'), "export { MongoClient } from 'mongodb';\n");
      writeFileSync(join(copy, 'src/mcp-server/bad-client-import.ts'), "export { SessionPool } from '../mcp-client/session-pool.js';\n");
      writeFileSync(
        join(copy, 'src/store/bad-contract-type.ts'),
        "export type { CommitStatus } from '../workflows/contracts/commit-workspace.js';\n",
      );
      writeFileSync(join(copy, 'src/workflows/contracts/bad-workflow-type.ts'), "export type { agentRun } from '../agent-run.js';\n");
      writeFileSync(join(copy, 'src/platform-sdk/bad-dependency.ts'), "export { z } from 'zod';\n");
      // The worker reaching the API's operations, through something it loads.
      appendFileSync(
        join(copy, 'src/workflow-clients/events.ts'),
        "\nexport type { OperationContext as _Api } from '../operations/services.js';\n",
      );
      // A cycle: the kernel's problem module imports the config module, which imports it back.
      appendFileSync(join(copy, 'src/kernel/config/env.ts'), "\nexport type { Problem as _Cycle } from '../errors/problem.js';\n");
      appendFileSync(join(copy, 'src/kernel/errors/problem.ts'), "\nexport type { Config as _Cycle } from '../config/env.js';\n");
    });
    after(() => rmSync(copy, { recursive: true, force: true }));

    it('reports each one under its rule', () => {
      const found = new Set(cruise(copy).map((v) => `${v.rule.name}: ${v.from}`));
      for (const expected of [
        'clients-import-contracts-only: src/activities/bad-workflow-import.ts',
        'layer-operations: src/operations/bad-api-import.ts',
        'mcp-client-and-server-apart: src/mcp-client/bad-server-import.ts',
        'layer-engines: src/store/bad-operations-import.ts',
        'workflow-code-is-pure: src/workflows/bad-io.ts',
        'workflow-code-is-pure: src/workflows/bad-package.ts',
        'mcp-client-and-server-apart: src/mcp-server/bad-client-import.ts',
        'layer-engines: src/store/bad-contract-type.ts',
        'contracts-never-see-workflows: src/workflows/contracts/bad-workflow-type.ts',
        'platform-sdk-stands-alone: src/platform-sdk/bad-dependency.ts',
        'no-circular: src/kernel/config/env.ts',
        'worker-never-loads-the-api: src/main/worker.ts',
      ]) {
        assert.ok(found.has(expected), `expected "${expected}" among ${[...found].join('; ')}`);
      }
    });
  });
});
