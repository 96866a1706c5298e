import { randomUUID } from 'node:crypto';
import { arch, platform } from 'node:os';
import type { RelayCall, RelayError, ResultRequest } from '../relay-protocol/wire.js';
import { backoffDelay, sleep } from './backoff.js';
import { CallRunner, type Outcome, type Progress } from './calls.js';
import { relayPackageVersion } from './config.js';
import type { Launcher } from './launch.js';
import { PlatformClient, PlatformError } from './platform-client.js';
import { policySummary, type Policy } from './policy.js';
import { NpxCaches } from './prefetch.js';
import { Repositories } from './repository.js';
import { scrub } from './scrub.js';
import { ServerPool } from './servers.js';

export interface RelayOptions {
  url: string;
  clientId: string;
  secret: string;
  policy: Policy;
  policyPath: string;
  stateDir: string;
  gitBase: string;
  launcher: Launcher;
  cwd: string;
  log: (line: string) => void;
}

interface Running {
  call: RelayCall;
  controller: AbortController;
  progress: Progress;
  /** The platform no longer wants the answer: never post it. */
  cancelled: boolean;
}

/** Exit codes: the process's answer to why the relay stopped. */
export const exitCodes = { stopped: 0, failed: 1, usage: 2, replaced: 3 } as const;

/**
 * The relay's loop (issue #34): hello, then long polls; each delivered call runs on its own, and its
 * answer is posted (retried until the call's deadline) whatever happens to the polls meanwhile. A
 * network failure or a 5xx is retried with backoff and full jitter on the same session; only a platform
 * that forgot the session gets a new hello, and another relay of the same host taking over ends this one.
 */
export class Relay {
  readonly session = randomUUID();
  private readonly client: PlatformClient;
  private readonly pool: ServerPool;
  private readonly runner: CallRunner;
  private readonly running = new Map<string, Running>();
  private readonly posting = new Set<Promise<void>>();
  private readonly errors: RelayError[] = [];
  private pollWaitMs = 20_000;
  private replaced = false;

  constructor(private readonly o: RelayOptions) {
    this.client = new PlatformClient({ url: o.url, clientId: o.clientId, secret: o.secret });
    this.pool = new ServerPool(o.launcher);
    // Shown on the host's page from the first poll: why nothing will run here.
    if (o.launcher.unavailable) this.recordError(`no server will run: ${o.launcher.unavailable}`);
    const repositories = new Repositories({ stateDir: o.stateDir, gitBase: o.gitBase, launcher: o.launcher, log: o.log });
    const npx = new NpxCaches({ stateDir: o.stateDir, cwd: o.cwd, launcher: o.launcher, log: o.log });
    this.runner = new CallRunner({
      policy: o.policy,
      policyPath: o.policyPath,
      cwd: o.cwd,
      launcher: o.launcher,
      pool: this.pool,
      repositories,
      npx,
    });
  }

  private recordError(message: string, call?: RelayCall) {
    this.errors.push({
      at: new Date().toISOString(),
      message: message.slice(0, 2000),
      ...(call ? { call_id: call.id.slice(0, 600), server_id: call.server.id.slice(0, 200) } : {}),
    });
    if (this.errors.length > 20) this.errors.splice(0, this.errors.length - 20);
  }

  private async hello(stop: AbortSignal): Promise<void> {
    for (let attempt = 0; !stop.aborted; attempt++) {
      try {
        const res = await this.client.hello({
          session: this.session,
          version: relayPackageVersion(),
          os: platform(),
          arch: arch(),
          sandbox: this.o.launcher.kind,
          policy: policySummary(this.o.policy),
        });
        this.pollWaitMs = Math.min(Math.max(res.poll_wait_ms, 0), 120_000);
        this.o.log(
          `connected as host "${res.host_title}" (${res.host_id}), session ${this.session}` +
            (res.lost_calls ? `; ${res.lost_calls} call(s) the previous relay had taken were failed as lost` : ''),
        );
        return;
      } catch (err) {
        if (err instanceof PlatformError && !err.sessionUnknown) throw err;
        const delay = backoffDelay(attempt);
        this.o.log(`cannot reach the platform (${(err as Error).message}); retrying in ${delay} ms`);
        await sleep(delay, stop);
      }
    }
  }

  /** Runs until `stop` aborts (exit 0), another session replaces this one (3), or the platform refuses the relay (1). */
  async run(stop: AbortSignal): Promise<number> {
    try {
      await this.hello(stop);
      let attempt = 0;
      while (!stop.aborted && !this.replaced) {
        try {
          const res = await this.client.poll(
            {
              session: this.session,
              // A cancelled call is no longer ours to report: the platform would answer every poll at once to cancel it again.
              running: [...this.running.values()]
                .filter((r) => !r.cancelled)
                .slice(0, 256)
                .map((r) => ({ id: r.call.id, ...definedProgress(r.progress) })),
              servers: this.pool.running().slice(0, 256),
              errors: this.errors.slice(-20),
            },
            this.pollWaitMs,
            stop,
          );
          if (attempt > 0) this.o.log('reconnected');
          attempt = 0;
          for (const id of res.cancel) this.cancel(id);
          for (const call of res.calls) this.start(call);
        } catch (err) {
          if (stop.aborted) break;
          if (err instanceof PlatformError) {
            if (err.sessionReplaced) throw err;
            if (err.sessionUnknown || err.status === 404) {
              this.o.log('the platform does not know this session: saying hello again');
              await this.hello(stop);
              continue;
            }
            if (err.status !== 401 && err.status !== 403) throw err;
          }
          const delay = backoffDelay(attempt++);
          this.o.log(`lost the platform (${(err as Error).message}); retrying in ${delay} ms (running calls carry on)`);
          await sleep(delay, stop);
        }
      }
      if (this.replaced) throw new PlatformError(409, 'relay-session-replaced', 'another relay took over');
      return exitCodes.stopped;
    } catch (err) {
      if (err instanceof PlatformError && err.sessionReplaced) {
        this.o.log('another relay for this host has started and took over: this one stops (run only one relay per host)');
        return exitCodes.replaced;
      }
      this.o.log(`stopping: ${(err as Error).message}`);
      return exitCodes.failed;
    } finally {
      await this.shutdown();
    }
  }

  private cancel(id: string) {
    const r = this.running.get(id);
    if (!r) return;
    r.cancelled = true;
    r.controller.abort();
    this.o.log(`call ${id} cancelled by the platform`);
  }

  private start(call: RelayCall) {
    if (this.running.has(call.id)) return; // delivered again after a reconnect: it is running already
    const entry: Running = { call, controller: new AbortController(), progress: {}, cancelled: false };
    this.running.set(call.id, entry);
    const what = call.op === 'tools/call' ? `${call.op} ${String(call.params.name)}` : call.op;
    this.o.log(`call ${call.id}: ${what} on "${call.server.title}"`);
    void this.runner
      .run(call, entry.controller.signal, (p) => (entry.progress = p))
      .then(async (outcome) => {
        if (entry.cancelled) return;
        if (outcome.outcome === 'failure') {
          const line = `call ${call.id} on "${call.server.title}" failed (${outcome.failure.kind}): ${outcome.failure.message}`;
          this.o.log(line);
          this.recordError(scrub(line, call.server.env), call);
        }
        await this.post(call, outcome);
      })
      .finally(() => this.running.delete(call.id));
  }

  /** Posts a call's answer, retried with backoff until its deadline; a 409 or 404 means the platform decided otherwise. */
  private post(call: RelayCall, outcome: Outcome): Promise<void> {
    let req = { session: this.session, ...outcome } as ResultRequest;
    const p = (async () => {
      const deadline = Date.parse(call.deadline_at);
      for (let attempt = 0; Date.now() < deadline; attempt++) {
        try {
          await this.client.result(call.id, req);
          return;
        } catch (err) {
          // An answer larger than the platform takes: the caller learns so now, not at the call's deadline.
          if (err instanceof PlatformError && err.status === 413 && req.outcome === 'result') {
            const message = `the server's answer was larger than the platform takes (${err.message})`;
            this.o.log(`call ${call.id}: ${message}`);
            req = { session: this.session, outcome: 'failure', failure: { kind: 'protocol', message, retryable: false } };
            continue;
          }
          // Any other 4xx (409 decided otherwise, 404 unknown call) is final: the platform will not take this answer.
          if (err instanceof PlatformError) {
            if (err.sessionReplaced) this.replaced = true;
            this.o.log(`the answer to call ${call.id} was not taken (${err.message}): dropped`);
            return;
          }
          await sleep(Math.min(backoffDelay(attempt), Math.max(0, deadline - Date.now())));
        }
      }
      this.o.log(`the answer to call ${call.id} could not be delivered before its deadline`);
    })();
    this.posting.add(p);
    return p.finally(() => this.posting.delete(p));
  }

  private async shutdown() {
    // Calls still running get a clean answer if the platform can take one quickly; then every child is closed.
    const stopping = [...this.running.values()].filter((r) => !r.cancelled);
    for (const r of stopping) {
      r.cancelled = true;
      r.controller.abort();
    }
    const answers = stopping.map((r) =>
      this.client
        .result(r.call.id, {
          session: this.session,
          outcome: 'failure',
          failure: { kind: 'cancelled', message: 'the relay was stopped', retryable: false },
        })
        .catch(() => {}),
    );
    await Promise.race([Promise.allSettled([...answers, ...this.posting]), sleep(3000)]);
    await this.pool.closeAll();
  }
}

const definedProgress = (p: Progress) => ({
  ...(p.progress !== undefined ? { progress: p.progress } : {}),
  ...(p.total !== undefined ? { total: p.total } : {}),
});
