// Nothing a session spawned outlives it, whatever befalls the worker (issue #36 review): a media
// process dies with the process that spawned it (setpriv's parent-death signal), reads its input no
// longer than the session runs (-t), and a killed worker's working directories are removed later.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setprivPath } from '../../src/media/process.js';
import { pullArgs, takeArgs } from '../../src/media/recorder.js';
import { removeStaleWorkDirs, workDirPrefix } from '../../src/media/workdirs.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Polls `check` every 50 ms, up to `tries` times (bounded: a condition, never a duration). */
async function until(check: () => boolean, tries = 200): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('media processes', () => {
  it('die with the process that spawned them when it is killed', { skip: setprivPath === null && 'no setpriv' }, async () => {
    const script = `const { spawnMedia } = await import(${JSON.stringify(join(process.cwd(), 'src/media/process.ts'))});
      const p = spawnMedia('sleep', ['600']); p.child.once('spawn', () => console.log(p.child.pid));`;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout!.once('data', (d) => resolve(Number(String(d).trim())));
      parent.once('exit', () => reject(new Error('the spawning process exited first')));
    });
    assert.ok(pid > 0 && alive(pid));
    parent.kill('SIGKILL');
    assert.ok(await until(() => !alive(pid)), `the child ${pid} outlived its killed parent`);
  });

  it('read their input no longer than the session runs', () => {
    const plan = { segmentSeconds: 2, stillEverySeconds: null, endsBy: Date.now() + 90_500 };
    for (const args of [pullArgs('rtmp://192.0.2.1/live/x', plan), takeArgs(4000, plan)]) {
      const t = args.indexOf('-t');
      assert.ok(t > 0 && t < args.indexOf('-i'), 'an input option');
      assert.ok(Number(args[t + 1]) >= 90 && Number(args[t + 1]) <= 91, args[t + 1]);
    }
    assert.equal(
      pullArgs('rtmp://192.0.2.1/live/x', { ...plan, endsBy: Date.now() - 5000 })[
        pullArgs('rtmp://192.0.2.1/live/x', plan).indexOf('-t') + 1
      ],
      '1',
    );
  });
});

describe('working directories', () => {
  it('removes those older than the longest session, and only those', async () => {
    const root = await mkdtemp(join(tmpdir(), 'workdirs-test-'));
    try {
      const old = join(root, `${workDirPrefix}old`);
      const fresh = join(root, `${workDirPrefix}fresh`);
      const other = join(root, 'someone-else');
      for (const d of [old, fresh, other]) await mkdir(join(d, 'pull-1'), { recursive: true });
      const longAgo = new Date(Date.now() - 3 * 3600_000);
      for (const d of [old, other]) await utimes(d, longAgo, longAgo);
      assert.equal(await removeStaleWorkDirs(2 * 3600_000, root), 1);
      assert.deepEqual((await readdir(root)).sort(), [`${workDirPrefix}fresh`, 'someone-else']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
