import { SdkError, SdkErrorCode, type Client } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { catalogListing, type CatalogListing, type RelayCall, type ResultRequest } from '../relay-protocol/wire.js';
import type { Launcher } from './launch.js';
import type { NpxCaches } from './prefetch.js';
import { checkEnv, checkRepository, checkStdio, type Policy } from './policy.js';
import { InstallError, type Repositories } from './repository.js';
import { scrub, scrubJson } from './scrub.js';
import type { ServerLaunch, ServerPool } from './servers.js';

type Failure = Extract<ResultRequest, { outcome: 'failure' }>['failure'];
export type Outcome = { outcome: 'result'; result: Record<string, unknown> } | { outcome: 'failure'; failure: Failure };

/** A refusal by the person's policy: the call fails with `refused`, the relay carries on. */
export class Refusal extends Error {}

export interface Progress {
  progress?: number;
  total?: number;
}

const toolParams = z.looseObject({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
const readParams = z.looseObject({ uri: z.string().min(1) });

/**
 * One relayed call, start to answer (issue #34): the policy decides, the pool gives a session, the
 * SDK sends the request with the call's timeouts; every text that leaves is scrubbed of the call's env.
 */
export class CallRunner {
  constructor(
    private readonly o: {
      policy: Policy;
      policyPath: string;
      cwd: string;
      launcher: Launcher;
      pool: ServerPool;
      repositories: Repositories;
      npx: NpxCaches;
    },
  ) {}

  /** What the policy lets this call start, or a Refusal naming the rule and the policy file. */
  async launchFor(call: RelayCall): Promise<ServerLaunch> {
    const { policy, policyPath, launcher } = this.o;
    if (launcher.unavailable) throw new Refusal(launcher.unavailable);
    const t = call.server.transport;
    const env = checkEnv(Object.keys(call.server.env));
    if (!env.ok) throw new Refusal(`refused by the relay's local policy (${policyPath}): ${env.rule}`);
    const verdict = t.type === 'stdio' ? checkStdio(policy, t.command, t.args, this.o.cwd) : checkRepository(policy, t.owner_repo, t.ref);
    if (!verdict.ok) throw new Refusal(`refused by the relay's local policy (${policyPath}): ${verdict.rule}`);
    if (t.type === 'stdio') {
      const args = verdict.args ?? t.args;
      if (t.command !== 'npx') return { command: t.command, args, binds: [], env: {}, network: policy.network };
      const cache = await this.o.npx.prepare(verdict.package!, !t.args.includes('--no-install'), policy.network);
      return { command: 'npx', args, ...cache, network: policy.network };
    }
    const repo = await this.o.repositories.prepare(t.owner_repo, t.ref);
    return {
      command: repo.command,
      args: [...repo.args, ...t.args],
      binds: repo.binds,
      env: repo.env,
      network: policy.network,
      commit: repo.commit,
    };
  }

  async run(call: RelayCall, signal: AbortSignal, onProgress: (p: Progress) => void): Promise<Outcome> {
    const env = call.server.env;
    let server;
    try {
      server = await this.o.pool.acquire(call, () => this.launchFor(call));
    } catch (err) {
      return failure(err, env, true);
    }
    try {
      const deadline = Date.parse(call.deadline_at);
      const options = {
        signal,
        timeout: call.timeout_ms,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: Math.max(1, deadline - Date.now()),
        onprogress: (p: Progress) => onProgress({ progress: p.progress, total: p.total }),
      };
      const result = await this.op(server.client, call, options);
      return { outcome: 'result', result: scrubJson(result, env) };
    } catch (err) {
      // SDK 2 rejects a request whose signal was aborted before it went out as a timeout: it was cancelled.
      if (signal.aborted) return { outcome: 'failure', failure: { kind: 'cancelled', message: 'cancelled', retryable: false } };
      const tail = server.stderrTail().trim();
      return failure(err, env, false, server.dead && tail ? tail : '');
    } finally {
      this.o.pool.release(server);
    }
  }

  private async op(client: Client, call: RelayCall, options: Parameters<Client['callTool']>[1] & object): Promise<Record<string, unknown>> {
    if (call.op === 'tools/call') {
      const p = toolParams.parse(call.params);
      return client.callTool({ name: p.name, arguments: p.arguments ?? {}, ...(p._meta ? { _meta: p._meta } : {}) }, options);
    }
    if (call.op === 'resources/read') return client.readResource({ uri: readParams.parse(call.params).uri }, options);
    return catalog(client, options);
  }
}

async function catalog(client: Client, options: Parameters<Client['listTools']>[1]): Promise<CatalogListing> {
  const tools: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  if (client.getServerCapabilities()?.tools)
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, options);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < 1000);
  const resources: Record<string, unknown>[] = [];
  cursor = undefined;
  if (client.getServerCapabilities()?.resources)
    do {
      const page = await client.listResources(cursor ? { cursor } : {}, options);
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor && resources.length < 1000);
  const typeDefinitions: { uri: string; text: string }[] = [];
  for (const r of resources.filter((r) => typeof r.uri === 'string' && r.uri.endsWith('type.json')).slice(0, 100)) {
    const read = await client.readResource({ uri: r.uri as string }, options);
    const text = read.contents.find((c) => 'text' in c && typeof c.text === 'string');
    if (text && 'text' in text) typeDefinitions.push({ uri: r.uri as string, text: text.text as string });
  }
  const info = client.getServerVersion();
  const instructions = client.getInstructions();
  return catalogListing.parse({
    ...(info ? { server_info: { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) } } : {}),
    ...(instructions ? { instructions } : {}),
    tools: tools.slice(0, 1000),
    resources: resources.slice(0, 1000),
    type_definitions: typeDefinitions,
  });
}

/** A failure, classified and scrubbed: the kind says what went wrong, never the secrets. */
export function failure(err: unknown, env: Record<string, string>, starting: boolean, stderrTail = ''): Outcome {
  const e = err as Error & { stderrTail?: string; starting?: boolean };
  const tail = (stderrTail || e.stderrTail || '').trim();
  const message = (text: string) => scrub(`${text}${tail ? `\nserver stderr: ${tail.slice(-1500)}` : ''}`, env).slice(0, 8000);
  if (err instanceof Refusal)
    return { outcome: 'failure', failure: { kind: 'refused', message: scrub(err.message, env), retryable: false } };
  if (err instanceof InstallError)
    return {
      outcome: 'failure',
      failure: { kind: 'install', message: message(`installing the repository failed: ${err.message}`), retryable: false },
    };
  if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout)
    return { outcome: 'failure', failure: { kind: 'timeout', message: message(err.message), retryable: false } };
  if ((err as Error)?.name === 'AbortError')
    return { outcome: 'failure', failure: { kind: 'cancelled', message: 'cancelled', retryable: false } };
  const kind = starting || e.starting ? 'start' : 'protocol';
  const what = kind === 'start' ? 'the server did not start' : 'the server failed';
  return {
    outcome: 'failure',
    failure: { kind, message: message(`${what}: ${(err as Error)?.message ?? String(err)}`), retryable: false },
  };
}
