// A real `git daemon` on loopback for the relay's repository transport (issue #34): repositories made
// from a folder of files, served read-only as git://127.0.0.1:<port>/<owner>/<name>.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../temporal-dev/engines.js';
import { untilReady } from './processes.js';

export interface GitServer {
  /** The relay's --git-base. */
  base: string;
  /** Publishes `files` as a commit on `branch` of owner/name (creating the repository); answers the commit. */
  publish(ownerRepo: string, files: string, opts?: { branch?: string; message?: string }): string;
  stop(): Promise<void>;
}

const git = (args: string[], cwd?: string) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    timeout: 30_000,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@localhost',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@localhost',
    },
  }).trim();

export async function startGitServer(): Promise<GitServer> {
  const root = mkdtempSync(join(tmpdir(), 'git-server-'));
  const served = join(root, 'served');
  mkdirSync(served);
  const port = await freePort();
  const daemon: ChildProcess = spawn(
    'git',
    ['daemon', '--verbose', '--export-all', '--reuseaddr', `--base-path=${served}`, '--listen=127.0.0.1', `--port=${port}`, served],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await untilReady(daemon, /Ready to rumble/, 'git daemon', { timeoutMs: 20_000 });
  return {
    base: `git://127.0.0.1:${port}`,
    publish(ownerRepo, files, { branch = 'main', message = 'publish' } = {}) {
      const bare = join(served, `${ownerRepo}.git`);
      const work = join(root, 'work', ownerRepo);
      if (!existsBare(bare)) {
        mkdirSync(bare, { recursive: true });
        git(['init', '--quiet', '--bare', `--initial-branch=${branch}`, bare]);
        mkdirSync(work, { recursive: true });
        git(['init', '--quiet', `--initial-branch=${branch}`, work]);
        git(['remote', 'add', 'origin', bare], work);
      }
      git(['checkout', '--quiet', '-B', branch], work);
      cpSync(files, work, { recursive: true });
      git(['add', '-A'], work);
      git(['commit', '--quiet', '--allow-empty', '-m', message], work);
      git(['push', '--quiet', '--force', 'origin', branch], work);
      return git(['rev-parse', 'HEAD'], work);
    },
    async stop() {
      if (daemon.exitCode === null) {
        const exited = new Promise((r) => daemon.once('exit', r));
        daemon.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function existsBare(dir: string): boolean {
  try {
    git(['rev-parse', '--git-dir'], dir);
    return true;
  } catch {
    return false;
  }
}
