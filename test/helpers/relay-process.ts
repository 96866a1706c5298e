// The desktop host relay as a person runs it (`node bin/platform-relay.mjs`, which `npx platform-relay`
// runs), in a process of its own, with a policy file and a state folder of the test's.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ServerCredential } from './credentials.js';
import type { Api } from './http.js';

export const hostType = 'application/vnd.platform.host+json';

/** A host artifact (a person's machine) in a workspace; answers its id. */
export async function createHost(owner: Api, workspace: string, title = 'laptop'): Promise<string> {
  const r = await owner.post('/artifacts', { title, content_type: hostType, content: '{}', collection_id: workspace });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

/** A relay's server credential, bound to the host and limited to its workspace, as the console makes one. */
export async function relayCredential(
  owner: Api,
  hostId: string,
  workspace: string,
  clientId = `relay-${randomUUID().slice(0, 8)}`,
): Promise<ServerCredential> {
  const r = await owner.post('/server-credentials', {
    client_id: clientId,
    name: 'relay',
    server_id: 'relay',
    host_id: hostId,
    scopes: ['artifact:read'],
    resource_filters: { workspaces: [workspace], collections: [] },
  });
  assert.equal(r.status, 201, r.text);
  return { client_id: r.body.client_id, client_secret: r.body.client_secret };
}

export interface RelayProcess {
  child: ChildProcess;
  /** Every line it wrote to stderr so far. */
  lines: string[];
  /** Resolves with the first line (already written or to come) matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with its exit code (or signal) once it has exited. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface RelayOptions {
  url: string;
  clientId: string;
  secret: string;
  policy: Record<string, unknown>;
  gitBase?: string;
  /** Kept across restarts of the relay on one machine. */
  stateDir?: string;
}

/** A state folder outside /tmp (the sandbox's /tmp is a tmpfs of its own). */
export function relayStateDir(): string {
  mkdirSync(resolve('.dev'), { recursive: true });
  return mkdtempSync(join(resolve('.dev'), 'relay-state-'));
}

export function startRelay(o: RelayOptions): RelayProcess {
  const stateDir = o.stateDir ?? relayStateDir();
  const policyPath = join(stateDir, 'policy.json');
  writeFileSync(policyPath, JSON.stringify(o.policy));
  const args = ['bin/platform-relay.mjs', '--url', o.url, '--client-id', o.clientId, '--policy', policyPath, '--state-dir', stateDir];
  if (o.gitBase) args.push('--git-base', o.gitBase);
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PLATFORM_RELAY_CLIENT_SECRET: o.secret },
  });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  let partial = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const complete = partial.split('\n');
    partial = complete.pop()!;
    for (const line of complete) {
      lines.push(line);
      if (process.env.RELAY_TEST_VERBOSE) process.stderr.write(`[relay] ${line}\n`);
      for (const w of [...waiters])
        if (w.pattern.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
    }
  });
  child.stdout!.resume();
  const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')));
  return {
    child,
    lines,
    exited,
    waitFor(pattern, timeoutMs = 60_000) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen) return Promise.resolve(seen);
      return new Promise((ok, fail) => {
        const timer = setTimeout(
          () => fail(new Error(`the relay wrote no line matching ${pattern} in ${timeoutMs} ms:\n${lines.slice(-30).join('\n')}`)),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: (line) => {
            clearTimeout(timer);
            ok(line);
          },
        });
        void exited.then(() => {
          clearTimeout(timer);
          fail(new Error(`the relay exited before writing ${pattern}:\n${lines.slice(-30).join('\n')}`));
        });
      });
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
