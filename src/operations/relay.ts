import { setTimeout as sleep } from 'node:timers/promises';
import { baseType, hostType, mcpServerType } from '../artifacts/content-types/index.js';
import { hostOf, mcpServerContent } from '../artifacts/content-types/mcp-server.js';
import { problems } from '../kernel/errors/problem.js';
import type { HelloRequest, HelloResponse, PollRequest, PollResponse, RelayCall, ResultRequest } from '../relay-protocol/wire.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { RelayCallDoc, RelayHostDoc } from '../store/relay.js';
import { visibleArtifact } from './artifacts.js';
import type { OperationContext } from './services.js';

/** How long a poll waits for a call before answering empty; the relay polls again at once. */
export const pollWaitMs = 20_000;
/** How often a waiting poll looks for calls (one indexed read of the host's pending calls). */
const pollEveryMs = 250;
/** At most this many calls go out in one poll answer. */
const deliverBound = 16;
/** A host's calls are kept this long (a relay's hello forgets older ones). */
const keepCallsMs = 7 * 24 * 3600_000;
/** A call taken this long ago that its session does not say it runs never reached it. */
const redeliverAfterMs = 3000;

/**
 * The host a relay's token speaks for (docs/decisions.md, "Desktop host relay"): the token must be a
 * server credential's, its `host_id` must name a host artifact the credential can see (its creator's
 * grants and its own resource filters), and the credential's creator must be the host's. Anything
 * else is a 403 that names why.
 */
async function relayHost(ctx: OperationContext): Promise<{ host: ArtifactDoc; credentialId: string }> {
  const { actor } = ctx.state.principal;
  if (actor.kind !== 'server_credential')
    throw problems.forbidden('Only a desktop host relay, signed in with a server credential bound to a host, uses /relay.');
  const credential = await ctx.services.serverCredentials.get(actor.id);
  const hostId = credential?.host_id ?? '';
  const found = await visibleArtifact(ctx, hostId).catch(() => null);
  if (!found || baseType(found.doc.content_type) !== hostType)
    throw problems.forbidden(
      `Server credential ${actor.id} names host_id ${JSON.stringify(hostId)}, which is not a host artifact it can see: create a host (content type ${hostType}) and a credential bound to it.`,
    );
  // A host is its creator's machine: only their credentials connect its relay, which receives the secrets of every server on it.
  if (found.doc.provenance.created_by !== ctx.state.principal.subject)
    throw problems.forbidden(`Host ${hostId} is another person's machine: only its creator's server credentials connect its relay.`);
  if (found.doc.archived_at) throw problems.forbidden(`Host ${hostId} is archived; unarchive it to connect its relay.`);
  return { host: found.doc, credentialId: actor.id };
}

/** A relay process starts: its session becomes the host's, and calls taken by earlier sessions and never answered are lost. */
export async function relayHello(ctx: OperationContext, hello: HelloRequest): Promise<HelloResponse> {
  const { host, credentialId } = await relayHost(ctx);
  const { relay } = ctx.services;
  const now = new Date();
  await relay.putHost({
    _id: host._id,
    session: hello.session,
    session_started_at: now,
    last_seen: now,
    credential_id: credentialId,
    version: hello.version,
    os: hello.os,
    arch: hello.arch,
    sandbox: hello.sandbox,
    policy: hello.policy,
    servers: [],
    errors: [],
  });
  const orphans = await relay.orphaned(host._id, hello.session, new Date(now.getTime() - 24 * 3600_000));
  let lost = 0;
  for (const claim of orphans) if (await relay.decide({ _id: claim._id, host_id: host._id, outcome: 'lost', at: now })) lost += 1;
  const pruned = await prune(ctx, host._id, true);
  ctx.services.logger.info({ host_id: host._id, session: hello.session, version: hello.version, lost, pruned }, 'relay connected');
  return { host_id: host._id, host_title: host.title, poll_wait_ms: pollWaitMs, lost_calls: lost };
}

/** When this process last forgot each host's old calls: a relay that runs for weeks has them forgotten hourly. */
const prunedAt = new Map<string, number>();

async function prune(ctx: OperationContext, hostId: string, now = false): Promise<number> {
  const last = prunedAt.get(hostId) ?? 0;
  if (!now && Date.now() - last < 3600_000) return 0;
  prunedAt.set(hostId, Date.now());
  if (prunedAt.size > 10_000) prunedAt.delete(prunedAt.keys().next().value!);
  return ctx.services.relay.prune(hostId, new Date(Date.now() - keepCallsMs));
}

/** The host's current session, or 409: another relay process took the host over (or the session never said hello). */
async function currentSession(ctx: OperationContext, hostId: string, session: string): Promise<RelayHostDoc> {
  const doc = await ctx.services.relay.getHost(hostId);
  // Never said hello (or the record is gone): the relay says hello again with the same session, keeping its calls.
  if (!doc) throw problems.conflict('relay-session-unknown', `Session ${session} has not said hello: POST /relay/hello first.`);
  if (doc.session !== session)
    throw problems.conflict(
      'relay-session-replaced',
      `Another relay process (session ${doc.session}, started ${doc.session_started_at.toISOString()}) now serves host ${hostId}: run one relay per host.`,
    );
  return doc;
}

/**
 * The relay's heartbeat and long poll: records what it runs, passes on its calls' progress, names
 * the running calls nobody waits for any more (cancel them), and hands out calls for its host,
 * each taken with a claim (a unique insert) so two pollers never both get one.
 */
export async function relayPoll(ctx: OperationContext, poll: PollRequest, gone: () => boolean): Promise<PollResponse> {
  const { host } = await relayHost(ctx);
  const { relay } = ctx.services;
  await currentSession(ctx, host._id, poll.session);
  const seen = () => relay.setSeen(host._id, { last_seen: new Date(), servers: poll.servers, errors: poll.errors });
  await seen();
  await prune(ctx, host._id);
  // Only the calls this session took: a relay speaks for its own calls and no one else's.
  const mine = new Set((await relay.claimsOf(poll.running.map((r) => r.id))).filter((c) => c.session === poll.session).map((c) => c._id));
  const running = poll.running.filter((r) => mine.has(r.id));
  for (const r of running)
    if (r.progress !== undefined)
      await relay.setProgress({ _id: r.id, progress: r.progress, ...(r.total !== undefined ? { total: r.total } : {}), at: new Date() });
  const cancel = (await relay.decided(running.map((r) => r.id))).map((d) => d._id);
  const started = Date.now();
  const resent = await redeliver(ctx, host, poll);
  let lastSeen = started;
  for (;;) {
    const calls = [...resent.splice(0), ...(await deliver(ctx, host, poll.session))];
    if (calls.length || cancel.length || Date.now() - started >= pollWaitMs || gone()) return { calls, cancel };
    if (Date.now() - lastSeen >= 5000) {
      lastSeen = Date.now();
      await currentSession(ctx, host._id, poll.session);
      await seen();
    }
    await sleep(pollEveryMs);
  }
}

/** Takes the host's pending calls for this session and makes each a delivery, its secrets opened for it alone. */
async function deliver(ctx: OperationContext, host: ArtifactDoc, session: string): Promise<RelayCall[]> {
  const { relay } = ctx.services;
  const calls: RelayCallDoc[] = [];
  const pending = await relay.pendingFor(host._id, new Date(), deliverBound);
  // Another relay process may have taken the host over while this poll waited: it takes nothing more.
  if (pending.length) await currentSession(ctx, host._id, session);
  for (const call of pending) {
    if (await relay.claim({ _id: call._id, host_id: host._id, session, claimed_at: new Date() })) calls.push(call);
  }
  return prepared(ctx, host, calls);
}

/** Taken calls as deliveries; one that cannot be prepared is decided as a failure that says why. */
async function prepared(ctx: OperationContext, host: ArtifactDoc, calls: RelayCallDoc[]): Promise<RelayCall[]> {
  const deliveries: RelayCall[] = [];
  for (const call of calls) {
    try {
      deliveries.push(await delivery(ctx, host, call));
    } catch (err) {
      const message = err instanceof Undeliverable ? err.message : 'The platform could not prepare the call.';
      if (!(err instanceof Undeliverable)) ctx.services.logger.error({ err, call_id: call._id }, 'relay call not delivered');
      await ctx.services.relay.decide({
        _id: call._id,
        host_id: host._id,
        outcome: 'failure',
        failure: { kind: 'start', message, retryable: err instanceof Undeliverable && err.retryable },
        at: new Date(),
      });
    }
  }
  return deliveries;
}

/**
 * Calls this session took that it does not say it runs, and nobody decided: the answer that carried
 * them never reached the relay (the connection dropped as it was sent). They go out again; the relay
 * ignores a call it already runs. Only calls taken a while ago: a poll racing this one may have just
 * taken some.
 */
async function redeliver(ctx: OperationContext, host: ArtifactDoc, poll: PollRequest): Promise<RelayCall[]> {
  const { relay } = ctx.services;
  const now = Date.now();
  const running = new Set(poll.running.map((r) => r.id));
  const taken = (await relay.takenBy(host._id, poll.session, new Date(now - 24 * 3600_000), new Date(now - redeliverAfterMs))).filter(
    (c) => !running.has(c._id),
  );
  const decided = new Set((await relay.decided(taken.map((c) => c._id))).map((d) => d._id));
  const calls: RelayCall[] = [];
  for (const claim of taken.filter((c) => !decided.has(c._id))) {
    const call = await relay.getCall(claim._id);
    if (!call || call.deadline_at.getTime() <= now) continue;
    calls.push(...(await prepared(ctx, host, [call])));
  }
  if (calls.length)
    ctx.services.logger.warn({ host_id: host._id, calls: calls.length }, 'relay calls sent again: the relay never got them');
  return calls;
}

class Undeliverable extends Error {
  constructor(
    message: string,
    readonly retryable = false,
  ) {
    super(message);
  }
}

/** The call as the relay runs it: the registration at the revision the caller was allowed to call, and its secrets. */
async function delivery(ctx: OperationContext, host: ArtifactDoc, call: RelayCallDoc): Promise<RelayCall> {
  const doc = await ctx.services.artifacts.get(call.server_id);
  if (!doc || baseType(doc.content_type) !== mcpServerType) throw new Undeliverable(`MCP server ${call.server_id} no longer exists.`);
  // Changed since the call was made: the caller is asked to call again, with the registration as it is now.
  if (doc.revision !== call.revision)
    throw new Undeliverable(`MCP server ${call.server_id} changed while the call waited (revision ${doc.revision}); calling again.`, true);
  const content = mcpServerContent.parse(JSON.parse(doc.content));
  const { transport } = content;
  if (transport.type === 'http' || hostOf(content) !== host._id)
    throw new Undeliverable(`MCP server ${call.server_id} no longer runs on host ${host._id}.`);
  const env: Record<string, string> = {};
  for (const [name, ref] of Object.entries(transport.env)) {
    const value = await ctx.services.secrets.reveal(call.secrets_owner, ref.secret_id);
    if (value === null)
      throw new Undeliverable(
        `The secret referenced by transport.env.${name} no longer exists; store it again with POST /secrets and update the server.`,
      );
    env[name] = value;
  }
  return {
    id: call._id,
    op: call.op,
    server: {
      id: doc._id,
      revision: doc.revision,
      title: doc.title,
      transport:
        transport.type === 'stdio'
          ? { type: 'stdio', command: transport.command!, args: transport.args ?? [] }
          : { type: 'repository', owner_repo: transport.owner_repo, ref: transport.ref, args: transport.args },
      env,
    },
    params: call.params,
    timeout_ms: call.timeout_ms,
    deadline_at: call.deadline_at.toISOString(),
  };
}

/** A call's one answer from the session that took it; a call decided otherwise first (lost, cancelled, timed out) refuses it with 409. */
export async function relayResult(ctx: OperationContext, callId: string, answer: ResultRequest): Promise<void> {
  const { host } = await relayHost(ctx);
  const { relay } = ctx.services;
  const [call, claim] = await Promise.all([relay.getCall(callId), relay.getClaim(callId)]);
  if (!call || call.host_id !== host._id) throw problems.notFound('relay call', callId);
  if (!claim || claim.session !== answer.session)
    throw problems.conflict('relay-call-not-yours', `Call ${callId} was not taken by session ${answer.session}.`);
  const won = await relay.decide({
    _id: callId,
    host_id: host._id,
    session: answer.session,
    at: new Date(),
    ...(answer.outcome === 'result' ? { outcome: 'result', result: answer.result } : { outcome: 'failure', failure: answer.failure }),
  });
  if (!won) {
    const decided = await relay.getResult(callId);
    throw problems.conflict(
      'relay-call-decided',
      `Call ${callId} was already decided (${decided?.outcome ?? 'unknown'}); this answer is not used.`,
    );
  }
}

/** Every host the caller may see, with what its relay last said (SPEC §4.5 relay_status). */
export async function relayStatuses(
  ctx: OperationContext,
  workspaceId?: string,
): Promise<{ host: ArtifactDoc; status: RelayHostDoc | null }[]> {
  const { principal } = ctx.state;
  const { services } = ctx;
  let workspaceIds: string[];
  if (workspaceId) {
    if (!(await services.containers.get('workspace', principal, workspaceId))) throw problems.notFound('workspace', workspaceId);
    workspaceIds = [workspaceId];
  } else workspaceIds = await services.containers.visibleIds('workspace', principal);
  const page = workspaceIds.length
    ? await services.artifacts.list(workspaceIds, { contentType: hostType, typeLimits: principal.scopes.typeLimits('artifact:read') }, 200)
    : { items: [] };
  const hosts = page.items.filter((d) => !d.archived_at && baseType(d.content_type) === hostType);
  const statuses = new Map((await services.relay.hostsByIds(hosts.map((h) => h._id))).map((s) => [s._id, s]));
  return hosts.map((host) => ({ host, status: statuses.get(host._id) ?? null }));
}

/**
 * Whether a host's relay counts as connected now: heard from within 30 s (a polling relay is seen every
 * 5 s). Its calls are given up on later, after relayOfflineAfterMs, so a blip shows but costs nothing.
 */
export const isConnected = (status: RelayHostDoc | null, now = Date.now()) => status !== null && now - status.last_seen.getTime() <= 30_000;
