// Issue #21's kill test: the API process is SIGKILLed right after a write returns and before its event
// is handed on. The write's revision claim holds the event (the outbox), so after the restart the
// worker's sweeper relays it, and it is recorded exactly once, judged by event id.
// A Tier 3 subscriber (a real local HTTP receiver) then gets each event exactly once, by event id.
// Deterministic: the killed API runs with the fast path off (EVENT_RELAY_INLINE=false) and no worker
// (so no sweeper) runs until after the kill.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Api, eventually } from '../helpers/http.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { revisionsCollection } from '../../src/store/revisions.js';
import { registerServer } from '../helpers/mcp-servers.js';

let platform: TestPlatform;
const processes: ApiProcess[] = [];
let receiver: Server;
let hookUrl = '';
/** Ids of the event bodies the receiver accepted, in arrival order. */
const delivered: string[] = [];

before(async () => {
  platform = await startPlatform(
    {
      EVENT_RELAY_GRACE_MS: '500',
      EVENT_RELAY_SWEEP_MS: '200',
      MCP_OUTBOUND_ALLOW: '127.0.0.0/8',
      SUBSCRIPTION_RETRY_INITIAL_MS: '50',
      SUBSCRIPTION_RETRY_MAX_MS: '200',
      SUBSCRIPTION_POLL_SECONDS: '2',
    },
    { worker: false },
  );
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      delivered.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
});
after(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await new Promise((r) => receiver.close(r));
  await platform.close();
});

interface PresentedEvent {
  id: string;
  kind: string;
  workspace_id: string;
  artifact_id: string;
  actor: string;
  occurred_at: string;
  changed?: string[];
  content_type?: string;
  revision?: number;
  source?: { kind?: string; request_id?: string };
  depth?: number;
  seq?: number;
}

async function allEvents(api: Api, ws: string): Promise<PresentedEvent[]> {
  const reply = await api.get(`/workspaces/${ws}/events?limit=100`);
  assert.equal(reply.status, 200, reply.text);
  return reply.body.items;
}

describe('an API killed right after a write returns', () => {
  it('loses no event: the sweeper relays it after the restart, and it is recorded once', async () => {
    const first = await apiProcess(platform, { EVENT_RELAY_INLINE: 'false', MCP_OUTBOUND_ALLOW: '127.0.0.0/8' });
    processes.push(first);
    const api = await new Api(first.url).login(adminEmail, adminPassword);
    const ws = (await api.post('/workspaces', { name: 'kill' })).body.id as string;
    // A Tier 3 subscriber to the workspace: a registered server (in another workspace) and its webhook.
    const servers = (await api.post('/workspaces', { name: 'servers' })).body.id as string;
    const serverId = await registerServer(api, servers, { transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' } }, 'subscriber');
    const sub = await api.post(`/workspaces/${ws}/subscriptions`, { url: hookUrl, server_id: serverId });
    assert.equal(sub.status, 201, sub.text);
    const created = await api.post('/artifacts', { title: 'survivor', content_type: 'text/markdown', content: '# a', collection_id: ws });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    const patched = await api.patch(`/artifacts/${id}`, { title: 'survivor, renamed' });
    assert.equal(patched.status, 200, patched.text);
    first.child.kill('SIGKILL'); // the write has returned; nothing has handed its event on
    await new Promise((r) => first.child.once('exit', r));

    // The outbox holds both events, waiting; nothing is recorded.
    const claims = await revisionsCollection(platform.services.db).find({ artifact_id: id }).sort({ _id: 1 }).toArray();
    assert.equal(claims.length, 2);
    assert.ok(claims.every((c) => c.event && c.event_waiting && !c.event_relayed_at));
    assert.equal(await platform.services.db.collection('events').countDocuments({ workspace_id: ws }), 0);

    // Restart: the API again (fast path on), and a worker, whose sweeper finds the waiting events.
    const second = await apiProcess(platform, { MCP_OUTBOUND_ALLOW: '127.0.0.0/8' });
    processes.push(second);
    await platform.startWorker();
    const api2 = await new Api(second.url).login(adminEmail, adminPassword);
    const recorded = await eventually(
      async () => {
        const list = await allEvents(api2, ws);
        return list.length >= 2 ? list : undefined;
      },
      30_000,
      'both events recorded after the restart',
    );
    assert.deepEqual(recorded.map((e) => e.id).sort(), claims.map((c) => c.event!.id).sort(), 'the events the claims held, by id');
    const [updated, createdEvent] = recorded; // most recent first
    assert.equal(createdEvent!.kind, 'artifact_created');
    assert.equal(updated!.kind, 'artifact_updated');
    assert.deepEqual(updated!.changed, ['title']);
    assert.deepEqual(
      recorded.map((e) => [e.seq, e.revision, e.content_type, e.workspace_id, e.artifact_id, e.depth]),
      [
        [2, 2, 'text/markdown', ws, id, 0],
        [1, 1, 'text/markdown', ws, id, 0],
      ],
    );
    assert.ok(recorded.every((e) => e.source?.kind === 'api' && e.source.request_id && e.actor && e.occurred_at));
    await eventually(
      async () =>
        (await revisionsCollection(platform.services.db).countDocuments({ artifact_id: id, event_relayed_at: { $exists: true } })) === 2,
      10_000,
      'both claims marked relayed',
    );

    // Handed on a second time (a relay that crashed before marking): still recorded once, and the
    // next event takes the next seq (the copy took none).
    await revisionsCollection(platform.services.db).updateOne({ _id: claims[0]!._id }, { $set: { event_waiting: true } });
    await eventually(
      async () => (await revisionsCollection(platform.services.db).findOne({ _id: claims[0]!._id }))?.event_waiting === undefined,
      10_000,
      'the copy relayed again',
    );
    const again = await api2.patch(`/artifacts/${id}`, { content: '# b' });
    assert.equal(again.status, 200);
    const third = await eventually(
      async () => {
        const list = await allEvents(api2, ws);
        return list.length >= 3 ? list : undefined;
      },
      20_000,
      'the next event',
    );
    assert.equal(third.length, 3, 'no event twice');
    assert.equal(new Set(third.map((e) => e.id)).size, 3);
    assert.deepEqual(
      third.map((e) => e.seq),
      [3, 2, 1],
    );
    assert.equal(await platform.services.db.collection('events').countDocuments({ workspace_id: ws }), 3);

    // The subscriber got each event once, in recording order.
    await eventually(async () => delivered.length >= 3, 30_000, 'three deliveries');
    await new Promise((r) => setTimeout(r, 1000)); // room for a duplicate to show up, if there were one
    assert.deepEqual(
      delivered,
      [...third].reverse().map((e) => e.id),
    );
  });
});
