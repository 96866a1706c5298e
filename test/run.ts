// The test runner behind `npm test`: starts real engines on free ports in a temporary folder, bundles
// the workflows once, runs every test file with node's test runner, then tears the engines down.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startEphemeralEngines } from '../temporal-dev/engines.js';
import { workflowsPath } from '../src/main/temporal-worker.js';

const say = (line: string) => console.log(`[test] ${line}`);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

async function main(): Promise<number> {
  const filter = process.argv.slice(2);
  const files = testFiles('test').filter((f) => filter.length === 0 || filter.some((x) => f.includes(x))).sort();
  const engines = await startEphemeralEngines('test', say);
  const { stateDir } = engines;
  try {
    const { code } = await bundleWorkflowCode({ workflowsPath, logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } });
    const bundlePath = join(stateDir, 'workflow-bundle.js');
    writeFileSync(bundlePath, code);
    const tapFile = join(stateDir, 'results.tap');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tapFile}`, ...files],
      {
        stdio: 'inherit',
        env: {
          ...process.env,
          // uvx and friends (temporal-dev/install-mcp-servers.sh): stdio MCP servers find them on the worker's PATH.
          PATH: `${resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'bin')}${delimiter}${process.env.PATH ?? ''}`,
          TEST_MONGODB_URI: engines.mongodbUri,
          TEST_TEMPORAL_ADDRESS: engines.temporalAddress,
          TEST_WORKFLOW_BUNDLE: bundlePath,
          TEST_STATE_DIR: stateDir,
        },
      },
    );
    const exitCode = await new Promise<number>((r) => child.once('exit', (c) => r(c ?? 1)));
    const tap = readFileSync(tapFile, 'utf8');
    const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0);
    console.log(`# pass ${count('pass')}\n# fail ${count('fail')}`);
    console.log(`${count('pass')} passed, ${count('fail')} failed`);
    return exitCode;
  } finally {
    await engines.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`[test] ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
