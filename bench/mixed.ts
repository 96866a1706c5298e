// What bench/scale.ts and bench/soak.ts share: calls to a running platform, waiting for its worker to
// settle, its storage-deadline count (from /metrics), and the 16-client mixed load of issue #31
// (create, get, patch, search, invoke) with its p50/p99, 5xx and storage-deadline counts.
import type { Db } from 'mongodb';
import { agentId } from '../src/invocations/agents/registry.js';
import { rng, body, title } from './seed/text.js';

export interface Client {
  url: string;
  headers: Record<string, string>;
}

export interface Reply {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One request; a client-side timeout (a platform that stopped answering) is status 0. */
export async function call(client: Client, method: string, path: string, payload?: unknown, timeoutMs = 60_000): Promise<Reply> {
  try {
    const res = await fetch(client.url + path, {
      method,
      headers: client.headers,
      body: payload === undefined ? undefined : JSON.stringify(payload),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, json };
  } catch {
    return { status: 0, json: null };
  }
}

/** The same, failing unless the status is 2xx. */
export async function must(client: Client, method: string, path: string, payload?: unknown): Promise<any> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await call(client, method, path, payload);
  if (r.status < 200 || r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json)?.slice(0, 500)}`);
  return r.json;
}

/** `count` artifacts created in `workspace` by 16 clients; their ids in order of creation. */
export async function createMany(client: Client, workspace: string, count: number, seed: number): Promise<string[]> {
  const random = rng(seed);
  const inputs = Array.from({ length: count }, (_, i) => {
    const t = title(random, i);
    return { title: t, content_type: 'text/markdown', content: body(random, 'text/markdown', t), collection_id: workspace };
  });
  const ids: string[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        const i = next++;
        ids[i] = (await must(client, 'POST', '/artifacts', inputs[i])).id;
      }
    }),
  );
  return ids;
}

/**
 * Waits until the worker has nothing left from earlier writes: no event waiting in the outbox, an
 * empty embedding backlog, and every draft of `workspaces` embedded at its revision; twice in a row, a
 * second apart. False when that did not happen within `maxMs`.
 */
export async function settled(db: Db, workspaces: string[], maxMs = 10 * 60_000): Promise<boolean> {
  const until = Date.now() + maxMs;
  let quiet = 0;
  while (Date.now() < until) {
    let idle =
      (await db.collection('artifact_revisions').countDocuments({ event_waiting: true })) === 0 &&
      (await db.collection('embedding_backlog').countDocuments({})) === 0;
    for (const ws of workspaces) {
      if (!idle) break;
      const docs = await db
        .collection<{ revision: number; search?: { revision: number } }>('artifacts')
        .find({ collection_id: ws }, { projection: { revision: 1, 'search.revision': 1 } })
        .toArray();
      idle = docs.every((d) => d.search?.revision === d.revision);
    }
    quiet = idle ? quiet + 1 : 0;
    if (quiet >= 2) return true;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return false;
}

/**
 * Storage calls that missed their deadline, summed over the processes' /metrics (the API, and a worker
 * of its own); NaN when one of them did not answer (the count is then unknown, never taken as 0).
 */
export async function storageDeadlines(urls: string[], headers: Record<string, string> = {}): Promise<number> {
  let total = 0;
  for (const url of urls) {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) }).catch(() => null);
    if (!res?.ok) return NaN;
    for (const line of (await res.text()).split('\n'))
      if (line.startsWith('platform_storage_operations_total{') && line.includes('outcome="deadline"'))
        total += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
  }
  return total;
}

export function percentile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN;
}

export interface MixedTargets {
  /** Where creates go. */
  workspace: string;
  /** Drafts to get, patch and invoke on. */
  artifactIds: string[];
  queries: string[];
}

export interface MixedResult {
  seconds: number;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  /** 5xx answers. */
  serverErrors: number;
  /** 503 storage-unavailable among them. */
  storageUnavailable: number;
  /** Requests the client gave up on (no answer in 30 s). */
  unanswered: number;
  /** Other answers that were not the expected success (4xx: a conflict, a race). */
  otherFailures: number;
  /** The longest time in which no request got any answer (a wedge shows here). */
  longestSilenceMs: number;
  byOp: Record<string, { n: number; p50: number; p99: number }>;
  /** Per-interval figures (the soak prints them). */
  intervals: { at: number; requests: number; p50: number; p99: number; serverErrors: number; unanswered: number }[];
}

const ops = [
  ['create', 25],
  ['get', 30],
  ['patch', 20],
  ['search', 20],
  ['invoke', 5],
] as const;
type Op = (typeof ops)[number][0];

/**
 * `clients` clients each sending one request after the other for `seconds`: creates, gets, patches,
 * searches and task-agent invocations (apply mode) in the proportions of `ops`.
 */
export async function mixedLoad(
  client: Client,
  targets: MixedTargets,
  seconds: number,
  options: { clients?: number; intervalSeconds?: number; onInterval?: (i: MixedResult['intervals'][number]) => void } = {},
): Promise<MixedResult> {
  const clients = options.clients ?? 16;
  const random = rng(7);
  const totalWeight = ops.reduce((s, [, w]) => s + w, 0);
  const pick = (): Op => {
    let x = random() * totalWeight;
    for (const [op, w] of ops) if ((x -= w) < 0) return op;
    return 'get';
  };
  const tag = agentId('tag-keywords');
  const latencies: Record<Op, number[]> = { create: [], get: [], patch: [], search: [], invoke: [] };
  const all: number[] = [];
  let serverErrors = 0;
  let storageUnavailable = 0;
  let unanswered = 0;
  let otherFailures = 0;
  let n = 0;
  const started = performance.now();
  let lastAnswer = started;
  let longestSilenceMs = 0;
  const end = started + seconds * 1000;
  const intervalMs = (options.intervalSeconds ?? 60) * 1000;
  let window: number[] = [];
  let windowErrors = 0;
  let windowUnanswered = 0;
  const intervals: MixedResult['intervals'] = [];
  const flushInterval = () => {
    const sorted = [...window].sort((a, b) => a - b);
    const entry = {
      at: Math.round((performance.now() - started) / 1000),
      requests: sorted.length,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      serverErrors: windowErrors,
      unanswered: windowUnanswered,
    };
    intervals.push(entry);
    options.onInterval?.(entry);
    window = [];
    windowErrors = 0;
    windowUnanswered = 0;
  };
  const ticker = setInterval(flushInterval, intervalMs);
  const pickId = () => targets.artifactIds[Math.floor(random() * targets.artifactIds.length)]!;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const op = pick();
        const i = n++;
        const t = performance.now();
        let r: Reply;
        let ok: (r: Reply) => boolean = (x) => x.status >= 200 && x.status < 300;
        switch (op) {
          case 'create':
            r = await call(
              client,
              'POST',
              '/artifacts',
              {
                title: `Mixed ${i}`,
                content_type: 'text/markdown',
                content: `# Mixed ${i}\n\n${'mixed load body text '.repeat(30)}`,
                collection_id: targets.workspace,
              },
              30_000,
            );
            break;
          case 'get':
            r = await call(client, 'GET', `/artifacts/${pickId()}`, undefined, 30_000);
            break;
          case 'patch':
            r = await call(client, 'PATCH', `/artifacts/${pickId()}`, { title: `Patched ${i}` }, 30_000);
            break;
          case 'search':
            r = await call(client, 'POST', '/artifacts/search', { query: targets.queries[i % targets.queries.length], limit: 10 }, 30_000);
            break;
          case 'invoke':
            r = await call(
              client,
              'POST',
              `/artifacts/${tag}/invoke`,
              { artifact_ids: [pickId()], mode: 'apply', params: { rules: { [`m${i}`]: ['the', 'of', 'and', 'a', 'to'] } } },
              30_000,
            );
            ok = (x) => x.status === 200 && x.json?.status === 'completed';
            break;
        }
        const ms = performance.now() - t;
        latencies[op].push(ms);
        all.push(ms);
        window.push(ms);
        if (r.status !== 0) {
          const now = performance.now();
          longestSilenceMs = Math.max(longestSilenceMs, now - lastAnswer);
          lastAnswer = now;
        }
        if (r.status === 0) {
          unanswered++;
          windowUnanswered++;
        } else if (r.status >= 500) {
          serverErrors++;
          windowErrors++;
          if (r.status === 503 && String(r.json?.type ?? '').includes('storage')) storageUnavailable++;
        } else if (!ok(r)) otherFailures++;
      }
    }),
  );
  clearInterval(ticker);
  if (window.length) flushInterval();
  longestSilenceMs = Math.max(longestSilenceMs, performance.now() - lastAnswer);
  const elapsed = (performance.now() - started) / 1000;
  all.sort((a, b) => a - b);
  const byOp = Object.fromEntries(
    Object.entries(latencies).map(([op, l]) => {
      const s = [...l].sort((a, b) => a - b);
      return [op, { n: s.length, p50: percentile(s, 0.5), p99: percentile(s, 0.99) }];
    }),
  );
  return {
    seconds: elapsed,
    requests: all.length,
    perSecond: all.length / elapsed,
    p50: percentile(all, 0.5),
    p99: percentile(all, 0.99),
    max: all.at(-1) ?? NaN,
    serverErrors,
    storageUnavailable,
    unanswered,
    otherFailures,
    longestSilenceMs,
    byOp,
    intervals,
  };
}
