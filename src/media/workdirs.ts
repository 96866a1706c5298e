// A session's working directory (segments, stills in progress) lives in the OS temp dir. One whose
// worker was killed is never removed by that worker: the next session on the host removes it.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const workDirPrefix = 'platform-stream-';

/** A new session's working directory. */
export function newWorkDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), workDirPrefix));
}

/**
 * Removes the working directories last changed more than `olderThanMs` ago (the longest a session
 * runs, and a margin): a live session's directory was made after its start, so its mtime is never that
 * old. Answers how many went; a directory it cannot read or remove is left (another user's).
 */
export async function removeStaleWorkDirs(olderThanMs: number, root = tmpdir(), now = Date.now()): Promise<number> {
  let removed = 0;
  const names = (await readdir(root).catch(() => [] as string[])).filter((n) => n.startsWith(workDirPrefix));
  for (const name of names) {
    const path = join(root, name);
    const info = await stat(path).catch(() => null);
    if (!info?.isDirectory() || now - info.mtimeMs <= olderThanMs) continue;
    try {
      await rm(path, { recursive: true, force: true });
      removed++;
    } catch {
      // not ours to remove
    }
  }
  return removed;
}
