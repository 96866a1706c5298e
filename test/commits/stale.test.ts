// A reviewer approves exactly what the preview showed, or nothing (issue #30): an approval whose
// previewed head moved is refused with 409 `commit-stale` and writes nothing, also when two approvals
// race through two API processes with two workers; and `commit_workspace` over MCP sends the person to
// the console page on the origin the client reached.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Api, eventually, type Reply } from '../helpers/http.js';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { workerProcess } from '../helpers/worker-process.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
/** Alice signed in, through a second API process (the same token: the replicas share the signing keys). */
let aliceThere: Api;
let second: ApiProcess;
let worker: ChildProcess;

before(async () => {
  platform = await startPlatform();
  alice = await platform.newUser();
  // Two API replicas, and two workers (the platform's own and a worker process) taking the approvals' activities.
  [second, worker] = await Promise.all([apiProcess(platform, { PLATFORM_API_URI: platform.config.apiUri }), workerProcess(platform)]);
  aliceThere = new Api(second.url, alice.token);
});
after(async () => {
  worker?.kill('SIGKILL');
  await second?.stop();
  await platform.close();
});

const stale = 'urn:platform:problem:commit-stale';

async function container(kind: 'workspaces' | 'collections'): Promise<string> {
  const reply = await alice.post(`/${kind}`, { name: kind });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

async function draft(ws: string, content: string): Promise<string> {
  const reply = await alice.post('/artifacts', { title: 'Doc', content_type: 'text/plain', content, collection_id: ws });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

async function edit(id: string, content: string): Promise<void> {
  const reply = await alice.patch(`/artifacts/${id}`, { content });
  assert.equal(reply.status, 200, reply.text);
}

function commitIn(id: string, state: string) {
  return eventually(
    async () => {
      const reply = await alice.get(`/commits/${id}`);
      assert.equal(reply.status, 200, reply.text);
      return reply.body.state === state ? reply.body : null;
    },
    60_000,
    `commit ${id} ${state}`,
  );
}

/** Requests a commit of `drafts` and waits for its preview: its items say what it was previewed against. */
async function requested(ws: string, col: string, drafts: string[]) {
  const reply = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, artifact_ids: drafts, message: 'race' });
  assert.equal(reply.status, 202, reply.text);
  return commitIn(reply.body.id, 'awaiting_approval');
}

const db = () => platform.services.db;
const versionsOf = async (artifactId: string) =>
  (await db().collection('artifact_versions').find({ artifact_id: artifactId }).sort({ version: 1 }).toArray()).map((v) => ({
    version: v.version as number,
    content: v.content as string,
    commit: v.provenance.commit_id as string,
  }));

/** Both approvals sent at once, one through each API process; returns the two replies in that order. */
async function approveBoth(first: string, other: string): Promise<[Reply, Reply]> {
  return Promise.all([alice.post(`/commits/${first}/approve`, {}), aliceThere.post(`/commits/${other}/approve`, {})]);
}

describe('an approval whose preview went stale', () => {
  it('is refused with 409 commit-stale and writes nothing (the reproduction of issue #30)', async () => {
    const [ws, col] = await Promise.all([container('workspaces'), container('collections')]);
    const d = await draft(ws, 'version one');
    const a = await requested(ws, col, [d]);
    assert.equal(a.preview.items[0].status, 'new');
    await edit(d, 'version two, newer');
    const b = await requested(ws, col, [d]);

    assert.equal((await alice.post(`/commits/${b.id}/approve`, {})).status, 200);
    const done = await commitIn(b.id, 'committed');
    const target = done.results[0].artifact_id as string;
    assert.equal((await alice.get(`/artifacts/${target}`)).body.content, 'version two, newer');

    const refused = await alice.post(`/commits/${a.id}/approve`, {});
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.headers.get('content-type')!, /^application\/problem\+json/);
    assert.equal(refused.body.type, stale);
    assert.match(refused.body.detail, /request a new commit/);
    assert.deepEqual(refused.body.items, [
      { source_artifact_id: d, artifact_id: target, title: 'Doc', previewed_version: null, current_version: 1 },
    ]);

    assert.deepEqual(
      (await versionsOf(target)).map((v) => [v.version, v.content]),
      [[1, 'version two, newer']],
      'version 1 unchanged, no version 2',
    );
    assert.equal((await alice.get(`/artifacts/${target}`)).body.content, 'version two, newer');
    const after = (await alice.get(`/commits/${a.id}`)).body;
    assert.equal(after.state, 'awaiting_approval', 'the refusal changes nothing: the commit still waits');
    assert.equal(after.decision, null);
    assert.deepEqual(after.stale.items, refused.body.items, 'the record says why, for whoever opens it next');
    const again = await alice.post(`/commits/${a.id}/approve`, {});
    assert.equal(again.body.type, stale, 'asking again gets the same answer');
    assert.equal(await db().collection('commit_version_claims').countDocuments({ commit_id: a.id }), 0, 'its claims let go');
    const rejected = await alice.post(`/commits/${a.id}/reject`, { comment: 'stale' });
    assert.equal(rejected.status, 200, 'a stale commit can still be rejected');
  });

  it('a claim left by a commit terminated mid-claim is released: the next approval is taken, not wedged', async () => {
    const [ws, col] = await Promise.all([container('workspaces'), container('collections')]);
    const d = await draft(ws, 'one');
    const dead = await requested(ws, col, [d]);
    const live = await requested(ws, col, [d]);
    // What a claiming attempt leaves when an operator terminates its workflow before it decides: a claim, no outcome.
    const target = live.preview.items[0].artifact_id as string;
    await db()
      .collection('commit_version_claims')
      .insertOne({ _id: `${target}:1` as never, artifact_id: target, version: 1, commit_id: dead.id, claimed_at: new Date() });
    const record = await db()
      .collection('commits')
      .findOne({ _id: dead.id as never });
    await platform.services.temporal.workflow.getHandle(record!.workflow_id as string).terminate('operator: terminated mid-claim');

    const approved = await alice.post(`/commits/${live.id}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    await commitIn(live.id, 'committed');
    assert.deepEqual(
      (await versionsOf(target)).map((v) => [v.version, v.content, v.commit]),
      [[1, 'one', live.id]],
    );
  });

  it('two approvals of commits previewed against the same head, through two API processes: exactly one wins, every round', async () => {
    const [ws, col] = await Promise.all([container('workspaces'), container('collections')]);
    const d = await draft(ws, 'start');
    let target: string | undefined;
    const rounds = 5;
    for (let round = 1; round <= rounds; round++) {
      await edit(d, `round ${round}: a`);
      const a = await requested(ws, col, [d]);
      await edit(d, `round ${round}: b`);
      const b = await requested(ws, col, [d]);
      const base = round === 1 ? null : round - 1;
      assert.equal(a.preview.items[0].current_version, base);
      assert.equal(b.preview.items[0].current_version, base);

      const [first, other] = round % 2 ? [a, b] : [b, a];
      const replies = await approveBoth(first.id, other.id);
      const won = replies.filter((r) => r.status === 200);
      const lost = replies.filter((r) => r.status === 409);
      assert.equal(won.length, 1, `round ${round}: one approval wins (${replies.map((r) => r.status)})`);
      assert.equal(lost.length, 1, `round ${round}: the other is refused`);
      assert.equal(lost[0]!.body.type, stale, lost[0]!.text);
      assert.equal(won[0]!.body.state, 'applying', 'the winner is told the truth: its versions are being written');
      const winner = replies[0]!.status === 200 ? first : other;
      const loser = winner === first ? other : first;
      assert.equal(lost[0]!.body.items[0].previewed_version, base);
      assert.equal(lost[0]!.body.items[0].current_version, round);

      const done = await commitIn(winner.id, 'committed');
      target ??= done.results[0].artifact_id as string;
      assert.equal(done.results[0].version, round);
      const versions = await versionsOf(target!);
      assert.deepEqual(
        versions.map((v) => v.version),
        Array.from({ length: round }, (_, i) => i + 1),
        `round ${round}: versions 1..${round}, none skipped or repeated`,
      );
      assert.equal(versions.at(-1)!.commit, winner.id);
      assert.equal(versions.at(-1)!.content, `round ${round}: ${winner === a ? 'a' : 'b'}`);
      assert.equal((await alice.get(`/artifacts/${target}`)).body.version, round);
      assert.equal((await alice.get(`/commits/${loser.id}`)).body.state, 'awaiting_approval');
      assert.equal(await db().collection('artifact_versions').countDocuments({ 'provenance.commit_id': loser.id }), 0);
      assert.equal((await alice.post(`/commits/${loser.id}/reject`, { comment: 'stale' })).status, 200);
    }
  });

  it('commits overlapping on some artifacts: the winner writes all of its items, the loser none of its own', async () => {
    const [ws, col] = await Promise.all([container('workspaces'), container('collections')]);
    const drafts = await Promise.all(['p', 'q', 'r', 's', 't'].map((c) => draft(ws, `${c} 0`)));
    const [p, q, r, s, t] = drafts as [string, string, string, string, string];
    const sourceOf = new Map<string, string>();
    for (let round = 1; round <= 3; round++) {
      for (const id of drafts) await edit(id, `${id} round ${round} for A`);
      const a = await requested(ws, col, [p, q, r, s]);
      for (const id of drafts) await edit(id, `${id} round ${round} for B`);
      const b = await requested(ws, col, [q, r, s, t]);

      const [first, other] = round % 2 ? [a, b] : [b, a];
      const replies = await approveBoth(first.id, other.id);
      assert.deepEqual(replies.map((x) => x.status).sort(), [200, 409], replies.map((x) => x.text).join('\n'));
      const winner = replies[0]!.status === 200 ? first : other;
      const loser = winner === first ? other : first;
      const refusal = replies.find((x) => x.status === 409)!;
      assert.equal(refusal.body.type, stale);
      const overlap = [q, r, s];
      assert.deepEqual(
        refusal.body.items.map((i: { source_artifact_id: string }) => i.source_artifact_id).sort(),
        [...overlap].sort(),
        'the refusal names exactly the items the winner took',
      );

      const done = await commitIn(winner.id, 'committed');
      for (const res of done.results) sourceOf.set(res.source_artifact_id, res.artifact_id);
      const own = winner === a ? p : t; // the winner's artifact the loser did not touch
      const theirs = winner === a ? t : p; // the loser's own artifact: nothing of the loser may land there either
      for (const source of [...overlap, own]) {
        const versions = await versionsOf(sourceOf.get(source)!);
        assert.deepEqual(
          versions.map((v) => v.version),
          Array.from({ length: versions.length }, (_, i) => i + 1),
        );
        assert.equal(versions.at(-1)!.commit, winner.id);
      }
      assert.equal(
        await db().collection('artifact_versions').countDocuments({ 'provenance.commit_id': loser.id }),
        0,
        `round ${round}: the loser is not half-applied (not even on ${theirs})`,
      );
      assert.equal(await db().collection('commit_version_claims').countDocuments({ commit_id: loser.id }), 0);
      assert.equal((await alice.post(`/commits/${loser.id}/reject`, { comment: 'stale' })).status, 200);
    }
  });
});

describe('commit_workspace over MCP', () => {
  it('sends the person to the console page on the origin the client reached, not a REST URL on the configured host', async () => {
    const [ws, col] = await Promise.all([container('workspaces'), container('collections')]);
    await draft(ws, 'proposed by an agent');
    const client = new Client({ name: 'stale-test', version: '1.0.0' });
    // A forwarded host is not trusted without TRUST_PROXY_HOPS: it must not change the link.
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${alice.token}`, 'x-forwarded-host': 'evil.example' } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'commit_workspace', arguments: { workspace_id: ws, collection_id: col, message: 'm' } });
      assert.ok(!result.isError, JSON.stringify(result.content));
      const out = result.structuredContent as { commit_id: string; review: string; approve: string };
      assert.notEqual(new URL(platform.config.apiUri).host, new URL(platform.url).host, 'configured: localhost; reached: 127.0.0.1');
      assert.equal(out.review, `${platform.url}/console/commits/${out.commit_id}`);
      assert.ok(out.approve.includes(out.review), out.approve);
      const page = await fetch(out.review);
      assert.equal(page.status, 200, 'the console serves the page');
    } finally {
      await client.close();
    }
  });
});
