// The test runner behind `npm test` and `npm run test:unit`.
//
//   node --import tsx test/run.ts [filter...]          every test file (units and integration): starts real
//                                                      engines on free ports in a temporary folder, bundles the
//                                                      workflows and builds the web console once, runs the files
//                                                      with node's test runner, then tears the engines down.
//   node --import tsx test/run.ts --unit [filter...]   only test/**/*.unit.test.ts: no engines, no workflow
//                                                      bundle, nothing but the npm packages needed.
//
// A filter keeps the files whose path contains it (`commits`, `identity/`, `auth.test`). Both modes end
// with the same summary lines: `# pass N`, `# fail N`, `N passed, N failed`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const say = (line: string) => console.log(`[test] ${line}`);

/** Test files without engines: named `<thing>.unit.test.ts`. */
const isUnitTest = (path: string) => path.endsWith('.unit.test.ts');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Runs the files with node's test runner, prints the summary lines and returns the exit code. */
async function runFiles(files: string[], tapFile: string, env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--test-concurrency=2',
      // A file whose tests have all finished exits even if something it started keeps its event loop
      // alive (a stdio MCP server a worker launched as the platform was closing held one file for good,
      // and with it the suite): a hang is then a failed test, never a suite that waits for CI's limit.
      '--test-force-exit',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tapFile}`,
      ...files,
    ],
    { stdio: ['inherit', 'pipe', 'inherit'], env },
  );
  // The spec report is passed through as it comes, and its summary kept: with --test-force-exit the
  // runner exits before the TAP file is flushed, so the TAP counts are only a fallback.
  let tail = '';
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-64 * 1024);
  });
  const exitCode = await new Promise<number>((r) => child.once('close', (c) => r(c ?? 1)));
  let tap = '';
  try {
    tap = readFileSync(tapFile, 'utf8');
  } catch {
    // no TAP file: the runner died before reporting; the counts below say 0 and the exit code says why
  }
  const last = (re: RegExp, text: string) => [...text.matchAll(re)].at(-1)?.[1];
  const count = (name: string) =>
    Number(last(new RegExp(`^ℹ ${name} (\\d+)$`, 'gm'), tail) ?? last(new RegExp(`^# ${name} (\\d+)$`, 'gm'), tap) ?? 0);
  console.log(`# pass ${count('pass')}\n# fail ${count('fail')}`);
  console.log(`${count('pass')} passed, ${count('fail')} failed`);
  return exitCode;
}

async function runUnits(files: string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-unit-'));
  try {
    // The engines' variables are left out, so a unit test that reached for an engine would fail here.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !/^TEST_(STORE_URI|TEMPORAL_ADDRESS|WORKFLOW_BUNDLE|STATE_DIR|CONSOLE_ASSETS_DIR)$/.test(k),
      ),
    );
    return await runFiles(files, join(dir, 'results.tap'), env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runAll(files: string[]): Promise<number> {
  // Imported here, not at the top: `--unit` must not load Temporal's worker or the engines' code.
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const { startEphemeralEngines } = await import('../temporal-dev/engines.js');
  const { workflowBundleOptions } = await import('../src/main/temporal-worker.js');
  const { buildConsole } = await import('../src/console/build-console.js');
  const engines = await startEphemeralEngines('test', say);
  const { stateDir } = engines;
  try {
    const { code } = await bundleWorkflowCode({
      ...workflowBundleOptions,
      logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
    });
    const bundlePath = join(stateDir, 'workflow-bundle.js');
    writeFileSync(bundlePath, code);
    // The web console, built once for every file's platform (src/console/build-console.ts).
    const web = await buildConsole(join(stateDir, 'console'));
    say(`console built in ${web.ms} ms`);
    return await runFiles(files, join(stateDir, 'results.tap'), {
      ...process.env,
      // uvx and friends (temporal-dev/install-mcp-servers.sh): stdio MCP servers find them on the worker's PATH.
      PATH: `${resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'bin')}${delimiter}${process.env.PATH ?? ''}`,
      TEST_STORE_URI: engines.storeUri,
      TEST_TEMPORAL_ADDRESS: engines.temporalAddress,
      TEST_WORKFLOW_BUNDLE: bundlePath,
      TEST_CONSOLE_ASSETS_DIR: web.outDir,
      TEST_STATE_DIR: stateDir,
    });
  } finally {
    await engines.stop();
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const unit = args.includes('--unit');
  const filter = args.filter((a) => a !== '--unit');
  const files = testFiles('test')
    .filter((f) => !unit || isUnitTest(f))
    .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)))
    .sort();
  if (files.length === 0) {
    say(`no test file matches ${unit ? '--unit ' : ''}${filter.join(' ')}`);
    return 1;
  }
  if (unit) return runUnits(files);
  // Only units selected (`npm test -- .unit.`, say): no engines needed for them either.
  if (files.every(isUnitTest)) return runUnits(files);
  return runAll(files);
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`[test] ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
