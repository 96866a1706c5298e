// Commit governance end to end: preview, request, a person's decision through the workflow, apply
// into immutable collection versions, and the refusals around it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { asServer, createApiKey, createServerCredential } from '../helpers/credentials.js';
import { Api, eventually } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };

before(async () => {
  platform = await startPlatform();
  [alice, bob] = await Promise.all([platform.newUser(), platform.newUser()]);
});
after(() => platform.close());

async function setup(api: Api = alice, titles = ['Alpha', 'Beta']) {
  const ws = (await api.post('/workspaces', { name: 'drafts' })).body.id as string;
  const col = (await api.post('/collections', { name: 'published' })).body.id as string;
  const ids: string[] = [];
  for (const title of titles) {
    const reply = await api.post('/artifacts', {
      title,
      content_type: 'text/markdown',
      content: `# ${title}\n\nfirst text`,
      collection_id: ws,
    });
    assert.equal(reply.status, 201, reply.text);
    ids.push(reply.body.id);
  }
  return { ws, col, ids };
}

/** The commit once it reaches `state`, read through the API. */
function commitIn(api: Api, id: string, state: string, timeoutMs = 30_000) {
  return eventually(
    async () => {
      const reply = await api.get(`/commits/${id}`);
      assert.equal(reply.status, 200, reply.text);
      return reply.body.state === state ? reply.body : null;
    },
    timeoutMs,
    `commit ${id} ${state}`,
  );
}

describe('commit preview', () => {
  it('says what each draft becomes: new, modified with a diff and the fields that changed, unchanged', async () => {
    const { ws, col, ids } = await setup();
    const first = await alice.post(`/workspaces/${ws}/commit-preview`, { collection_id: col });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body.counts, { new: 2, modified: 0, unchanged: 0 });
    assert.deepEqual(
      first.body.items.map((i: { source_artifact_id: string }) => i.source_artifact_id),
      ids,
    );
    assert.ok(first.body.items.every((i: { version: number; status: string }) => i.version === 1 && i.status === 'new'));
    assert.match(first.body.items[0].content_diff, /^\+# Alpha$/m);

    const req = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'first' });
    assert.equal(req.status, 202, req.text);
    await commitIn(alice, req.body.id, 'awaiting_approval');
    assert.equal((await alice.post(`/commits/${req.body.id}/approve`, {})).status, 200);
    await commitIn(alice, req.body.id, 'committed');

    assert.equal((await alice.patch(`/artifacts/${ids[0]}`, { content: '# Alpha\n\nsecond text', title: 'Alpha 2' })).status, 200);
    const before = JSON.stringify(await platform.services.db.collection('artifact_versions').find().sort({ _id: 1 }).toArray());
    const second = await alice.post(`/workspaces/${ws}/commit-preview`, { collection_id: col });
    assert.deepEqual(second.body.counts, { new: 0, modified: 1, unchanged: 1 });
    const [modified, unchanged] = second.body.items;
    assert.equal(modified.status, 'modified');
    assert.equal(modified.version, 2);
    assert.equal(modified.current_version, 1);
    assert.deepEqual(modified.changed_fields, ['title', 'content']);
    assert.deepEqual(modified.changes.title, { from: 'Alpha', to: 'Alpha 2' });
    assert.match(modified.content_diff, /^-first text$/m);
    assert.match(modified.content_diff, /^\+second text$/m);
    assert.equal(unchanged.status, 'unchanged');
    assert.equal(unchanged.version, 1);
    assert.equal(unchanged.content_diff, null);
    const after = JSON.stringify(await platform.services.db.collection('artifact_versions').find().sort({ _id: 1 }).toArray());
    assert.equal(after, before, 'a preview changes nothing');
  });

  it('refuses a bad selection clearly, starting nothing', async () => {
    const { ws, col, ids } = await setup();
    const other = await setup();
    const commits = await platform.services.db.collection('commits').countDocuments();
    const cases: [unknown, number, string][] = [
      [{ collection_id: col, artifact_ids: [other.ids[0]] }, 400, 'validation-error'],
      [{ collection_id: ws, message: 'x' }, 404, 'not-found'], // a workspace is not a target
      [{ collection_id: col, artifact_ids: [] }, 400, 'validation-error'],
      [{ collection_id: col, message: '' }, 400, 'validation-error'],
      [{ collection_id: 'nope', message: 'x' }, 400, 'validation-error'],
      [{ collection_id: col, message: 'x', expires_in: 10 ** 9 }, 400, 'validation-error'],
    ];
    for (const [body, status, type] of cases) {
      const reply = await alice.post(`/workspaces/${ws}/commits`, body);
      assert.equal(reply.status, status, `${JSON.stringify(body)}: ${reply.text}`);
      assert.equal(reply.body.type, `urn:platform:problem:${type}`);
    }
    const missing = await alice.post(`/workspaces/${ws}/commits`, {
      collection_id: col,
      artifact_ids: [ids[0], other.ids[1]],
      message: 'x',
    });
    assert.equal(missing.body.invalid_params[0].name, 'artifact_ids.1');
    assert.equal(await platform.services.db.collection('commits').countDocuments(), commits);
  });
});

describe('a commit decided by a person', () => {
  it('preview → request → approve → committed; versions readable with provenance, drafts untouched', async () => {
    const { ws, col, ids } = await setup();
    const req = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'publish the drafts' });
    assert.equal(req.status, 202, req.text);
    assert.equal(req.headers.get('location'), `/commits/${req.body.id}`);
    assert.equal(req.body.workflow_id, `commit-${ws}-${req.body.id}`);
    const waiting = await commitIn(alice, req.body.id, 'awaiting_approval');
    assert.deepEqual(waiting.preview.counts, { new: 2, modified: 0, unchanged: 0 });
    assert.deepEqual(waiting.progress, { applied: 0, total: 2 });
    assert.ok(Date.parse(waiting.expires_at) > Date.now());

    const handle = platform.services.temporal.workflow.getHandle(waiting.workflow_id);
    assert.equal(await handle.query('state'), 'awaiting_approval');
    const listed = await alice.get(`/commits?workspace_id=${ws}&state=awaiting_approval`);
    assert.deepEqual(
      listed.body.items.map((c: { id: string }) => c.id),
      [req.body.id],
    );

    const items = await alice.get(`/commits/${req.body.id}/items`);
    assert.equal(items.status, 200);
    assert.match(items.body.items[1].content_diff, /^\+# Beta$/m);

    const approved = await alice.post(`/commits/${req.body.id}/approve`, { comment: 'looks right' });
    assert.equal(approved.status, 200, approved.text);
    assert.ok(['applying', 'committed'].includes(approved.body.state));
    assert.equal(approved.body.decision.by, alice.userId);
    assert.equal(approved.body.decision.comment, 'looks right');
    const done = await commitIn(alice, req.body.id, 'committed');
    assert.deepEqual(done.progress, { applied: 2, total: 2 });
    assert.equal(done.results.length, 2);
    assert.deepEqual(
      done.results.map((r: { source_artifact_id: string }) => r.source_artifact_id),
      ids,
    );
    assert.deepEqual((await handle.query('progress')) as unknown, { applied: 2, total: 2 });

    const { artifact_id } = done.results[0];
    const head = await alice.get(`/artifacts/${artifact_id}`);
    assert.equal(head.body.collection_id, col);
    assert.equal(head.body.state, 'committed');
    assert.equal(head.body.version, 1);
    assert.equal(head.body.provenance.source.kind, 'commit');
    assert.equal(head.body.provenance.source.commit_id, req.body.id);
    assert.equal(head.body.provenance.source.derived_from, ids[0]);
    const v1 = await alice.get(`/artifacts/${artifact_id}/versions/1`);
    assert.equal(v1.status, 200, v1.text);
    assert.equal(v1.body.content, '# Alpha\n\nfirst text');
    assert.equal(v1.body.provenance.approved_by, alice.userId);
    assert.equal(v1.body.provenance.drafted_by, alice.userId);
    assert.equal(v1.body.provenance.source_artifact_id, ids[0]);
    assert.equal((await alice.get(`/artifacts/${ids[0]}`)).body.state, 'draft', 'the draft stays a draft');

    // A second round: modified content becomes version 2, version 1 stays readable.
    await alice.patch(`/artifacts/${ids[0]}`, { content: '# Alpha\n\nrevised' });
    const again = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, artifact_ids: [ids[0]], message: 'revise' });
    assert.equal(again.status, 202, again.text);
    await commitIn(alice, again.body.id, 'awaiting_approval');
    await alice.post(`/commits/${again.body.id}/approve`, {});
    const second = await commitIn(alice, again.body.id, 'committed');
    assert.deepEqual(
      second.results.map((r: { version: number }) => r.version),
      [2],
    );
    const versions = await alice.get(`/artifacts/${artifact_id}/versions`);
    assert.deepEqual(
      versions.body.items.map((v: { version: number }) => v.version),
      [1, 2],
    );
    assert.equal((await alice.get(`/artifacts/${artifact_id}/versions/1`)).body.content, '# Alpha\n\nfirst text');
    assert.equal((await alice.get(`/artifacts/${artifact_id}`)).body.content, '# Alpha\n\nrevised');
    assert.equal((await alice.get(`/artifacts/${artifact_id}/versions/3`)).status, 404);

    // Collection artifacts cannot be edited: the error says to commit.
    const refused = await alice.patch(`/artifacts/${artifact_id}`, { title: 'edit in place' });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.type, 'urn:platform:problem:immutable-artifact');
    assert.match(refused.body.detail, /commit/i);
    assert.equal((await alice.delete(`/artifacts/${artifact_id}`)).status, 409);

    // A decided commit takes no second decision; the same decision repeated is answered as it is.
    assert.equal((await alice.post(`/commits/${again.body.id}/approve`, {})).status, 200);
    const late = await alice.post(`/commits/${again.body.id}/reject`, { comment: 'too late' });
    assert.equal(late.status, 409);
    assert.equal(late.body.type, 'urn:platform:problem:commit-not-pending');
  });

  it('commits the reviewed snapshot, not edits made while it waited', async () => {
    const { ws, col, ids } = await setup(alice, ['Gamma']);
    const req = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'review me' });
    await commitIn(alice, req.body.id, 'awaiting_approval');
    await alice.patch(`/artifacts/${ids[0]}`, { content: 'edited after review' });
    await alice.post(`/commits/${req.body.id}/approve`, {});
    const done = await commitIn(alice, req.body.id, 'committed');
    const head = await alice.get(`/artifacts/${done.results[0].artifact_id}`);
    assert.equal(head.body.content, '# Gamma\n\nfirst text');
    const next = await alice.post(`/workspaces/${ws}/commit-preview`, { collection_id: col });
    assert.equal(next.body.items[0].status, 'modified', 'the later edit waits for its own review');
  });

  it('reject ends the commit with the reason and writes nothing', async () => {
    const { ws, col } = await setup();
    const req = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'maybe' });
    await commitIn(alice, req.body.id, 'awaiting_approval');
    const noReason = await alice.post(`/commits/${req.body.id}/reject`, {});
    assert.equal(noReason.status, 400);
    const rejected = await alice.post(`/commits/${req.body.id}/reject`, { comment: 'not yet' });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.body.state, 'rejected');
    assert.equal(rejected.body.decision.comment, 'not yet');
    assert.equal(rejected.body.results, null);
    assert.equal(await platform.services.db.collection('artifact_versions').countDocuments({ 'provenance.commit_id': req.body.id }), 0);
    assert.equal((await alice.get(`/artifacts?collection_id=${col}`)).body.items.length, 0);
    assert.equal((await alice.post(`/commits/${req.body.id}/approve`, {})).status, 409);
  });

  it('expires when nobody decides in time', async () => {
    const { ws, col } = await setup();
    const req = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'forgotten', expires_in: 2 });
    assert.equal(req.status, 202, req.text);
    const expired = await commitIn(alice, req.body.id, 'expired', 30_000);
    assert.equal(expired.decision, null);
    assert.equal((await alice.post(`/commits/${req.body.id}/approve`, {})).status, 409);
    assert.equal((await alice.get(`/artifacts?collection_id=${col}`)).body.items.length, 0);
  });

  it('is idempotent under an Idempotency-Key, and refuses to commit nothing', async () => {
    const { ws, col } = await setup();
    const send = () =>
      alice.request('POST', `/workspaces/${ws}/commits`, {
        body: { collection_id: col, message: 'once' },
        headers: { 'idempotency-key': 'k-1' },
      });
    const first = await send();
    const second = await send();
    assert.equal(first.status, 202, first.text);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.id, first.body.id);
    await commitIn(alice, first.body.id, 'awaiting_approval');
    await alice.post(`/commits/${first.body.id}/approve`, {});
    const done = await commitIn(alice, first.body.id, 'committed');
    const replay = await send();
    assert.equal(replay.status, 200, replay.text);
    const reused = await alice.request('POST', `/workspaces/${ws}/commits`, {
      body: { collection_id: col, message: 'once', artifact_ids: [done.results[0].source_artifact_id] },
      headers: { 'idempotency-key': 'k-1' },
    });
    assert.equal(reused.status, 409);
    assert.equal(reused.body.type, 'urn:platform:problem:idempotency-key-reused');
    assert.equal(replay.body.state, 'committed', 'a finished commit is not started over');
    const runs = [];
    for await (const run of platform.services.temporal.workflow.list({ query: `WorkflowId = '${done.workflow_id}'` })) runs.push(run);
    assert.equal(runs.length, 1);
    const nothing = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'again' });
    assert.equal(nothing.status, 409);
    assert.equal(nothing.body.type, 'urn:platform:problem:nothing-to-commit');
  });
});

describe('who may decide', () => {
  it('refuses approval by a server credential, an API key, or a person without the grant', async () => {
    const { ws, col } = await setup();
    const req = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'guarded' });
    await commitIn(alice, req.body.id, 'awaiting_approval');

    const server = await asServer(
      platform.url,
      await createServerCredential(alice, ['artifact:read', 'artifact:write', 'artifact:manage']),
    );
    const key = await createApiKey(alice, ['artifact:read', 'artifact:write', 'artifact:manage']);
    const keyApi = new Api(platform.url, key.key);
    for (const [who, api] of [
      ['server credential', server],
      ['API key', keyApi],
    ] as const) {
      for (const path of ['approve', 'reject']) {
        const reply = await api.post(`/commits/${req.body.id}/${path}`, { comment: 'by a machine' });
        assert.equal(reply.status, 403, `${who} ${path}: ${reply.text}`);
        assert.equal(reply.body.type, 'urn:platform:problem:human-required');
      }
    }
    // Bob can read the workspace but holds no grant on the collection.
    await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'R' });
    const bobs = await bob.post(`/commits/${req.body.id}/approve`, {});
    assert.equal(bobs.status, 403, bobs.text);
    assert.equal(bobs.body.type, 'urn:platform:problem:forbidden');
    const stranger = await platform.newUser();
    assert.equal((await stranger.post(`/commits/${req.body.id}/approve`, {})).status, 404);
    assert.equal((await stranger.get(`/commits/${req.body.id}`)).status, 404);
    assert.equal((await alice.get(`/commits/${req.body.id}`)).body.state, 'awaiting_approval', 'nothing was decided');

    // With C on the collection, Bob may decide on Alice's commit.
    await alice.post(`/collections/${col}/shares`, { person_id: bob.userId, flags: 'RC' });
    const ok = await bob.post(`/commits/${req.body.id}/approve`, {});
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.decision.by, bob.userId);
    const done = await commitIn(alice, req.body.id, 'committed');
    assert.equal((await alice.get(`/artifacts/${done.results[0].artifact_id}/versions/1`)).body.provenance.approved_by, bob.userId);
  });

  it('refuses approval from a server credential acting for the approver', async () => {
    const { ws, col } = await setup();
    const req = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'no proxies' });
    await commitIn(alice, req.body.id, 'awaiting_approval');
    const cred = await createServerCredential(bob, ['artifact:read', 'artifact:write', 'artifact:manage']);
    await alice.post('/consents', { credential_kind: 'server_credential', credential_id: cred.client_id });
    const server = await asServer(platform.url, cred);
    const reply = await server.request('POST', `/commits/${req.body.id}/approve`, {
      body: {},
      headers: { 'x-on-behalf-of': alice.userId },
    });
    assert.equal(reply.status, 403, reply.text);
    assert.equal(reply.body.type, 'urn:platform:problem:human-required');
  });

  it('shows drafts only to readers of the workspace and reviewers of the collection', async () => {
    const { ws, col } = await setup();
    const req = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'private drafts' });
    await commitIn(alice, req.body.id, 'awaiting_approval');
    const reader = await platform.newUser();
    await alice.post(`/collections/${col}/shares`, { person_id: reader.userId, flags: 'R' });
    for (const path of [`/commits/${req.body.id}`, `/commits/${req.body.id}/items`])
      assert.equal((await reader.get(path)).status, 404, path);
    assert.ok(!(await reader.get('/commits')).body.items.some((c: { id: string }) => c.id === req.body.id));
    const reviewer = await platform.newUser();
    await alice.post(`/collections/${col}/shares`, { person_id: reviewer.userId, flags: 'RC' });
    assert.equal((await reviewer.get(`/commits/${req.body.id}/items`)).status, 200);
    assert.ok((await reviewer.get('/commits')).body.items.some((c: { id: string }) => c.id === req.body.id));
  });

  it('needs the E grant on the workspace to commit its drafts out of it', async () => {
    const { ws } = await setup();
    const mine = (await bob.post('/collections', { name: "bob's" })).body.id;
    await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'R' });
    const refused = await bob.post(`/workspaces/${ws}/commits`, { collection_id: mine, message: 'take them' });
    assert.equal(refused.status, 403, refused.text);
    await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'RE' });
    assert.equal((await bob.post(`/workspaces/${ws}/commits`, { collection_id: mine, message: 'with leave' })).status, 202);
  });

  it('commits what the requester could select, resolved at request time', async () => {
    const { ws, col, ids } = await setup();
    await alice.post('/artifacts', { title: 'Data', content_type: 'application/json', content: '{"a":1}', collection_id: ws });
    const textOnly = await asServer(platform.url, await createServerCredential(alice, ['resource:text/*:read', 'resource:text/*:write']));
    const req = await textOnly.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'text only' });
    assert.equal(req.status, 202, req.text);
    assert.deepEqual(req.body.artifact_ids, ids, 'the JSON draft is outside its scopes');
    assert.equal(req.body.selection, 'all');
    await alice.post('/artifacts', { title: 'Late', content_type: 'text/markdown', content: 'late', collection_id: ws });
    const waiting = await commitIn(alice, req.body.id, 'awaiting_approval');
    assert.deepEqual(
      waiting.preview.items.map((i: { source_artifact_id: string }) => i.source_artifact_id),
      ids,
      'a draft written after the request does not slip in',
    );
  });

  it('lets a server credential request a commit for a person to approve', async () => {
    const { ws, col } = await setup();
    const server = await asServer(platform.url, await createServerCredential(alice, ['artifact:read', 'artifact:write']));
    const req = await server.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'proposed by an agent' });
    assert.equal(req.status, 202, req.text);
    assert.equal(req.body.requested_via.kind, 'server_credential');
    await commitIn(alice, req.body.id, 'awaiting_approval');
    assert.equal((await alice.post(`/commits/${req.body.id}/approve`, {})).status, 200);
    await commitIn(alice, req.body.id, 'committed');
  });
});

describe('manage_artifact', () => {
  it('archives, unarchives, reverts to the last committed version, and deletes drafts', async () => {
    const { ws, col, ids } = await setup(alice, ['Delta', 'Epsilon']);
    const never = await alice.post(`/artifacts/${ids[0]}/manage`, { action: 'revert' });
    assert.equal(never.status, 409);
    assert.equal(never.body.type, 'urn:platform:problem:never-committed');

    const req = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'base' });
    await commitIn(alice, req.body.id, 'awaiting_approval');
    await alice.post(`/commits/${req.body.id}/approve`, {});
    const done = await commitIn(alice, req.body.id, 'committed');

    await alice.patch(`/artifacts/${ids[0]}`, { title: 'Delta changed', content: 'scribbles' });
    // As if someone else had written it last: whoever reverts writes the content, and owns its secrets
    // (a server registration's first-party credential must be the writer's, issue #20).
    await platform.services.db.collection('artifacts').updateOne({ _id: ids[0] } as never, { $set: { secrets_owner: 'someone-else' } });
    const reverted = await alice.post(`/artifacts/${ids[0]}/manage`, { action: 'revert' });
    assert.equal(reverted.status, 200, reverted.text);
    assert.equal(reverted.body.state, 'draft');
    assert.equal(reverted.body.artifact.title, 'Delta');
    assert.equal(reverted.body.artifact.content, '# Delta\n\nfirst text');
    assert.equal(reverted.body.artifact.provenance.source.derived_from, done.results[0].artifact_id);
    assert.equal((await platform.services.db.collection('artifacts').findOne({ _id: ids[0] } as never))?.secrets_owner, alice.userId);

    const found = async () =>
      (await alice.post('/artifacts/search', { query: 'Epsilon', limit: 50 })).body.results.map((r: { id: string }) => r.id);
    assert.ok((await found()).includes(ids[1]), 'found while a draft');
    const archived = await alice.post(`/artifacts/${ids[1]}/manage`, { action: 'archive' });
    assert.equal(archived.body.state, 'archived');
    assert.ok(!(await found()).includes(ids[1]), 'not found once archived');
    const edit = await alice.patch(`/artifacts/${ids[1]}`, { title: 'no' });
    assert.equal(edit.status, 409);
    assert.equal(edit.body.type, 'urn:platform:problem:archived-artifact');
    await alice.patch(`/artifacts/${ids[0]}`, { content: 'new text' });
    const preview = await alice.post(`/workspaces/${ws}/commit-preview`, { collection_id: col });
    assert.deepEqual(
      preview.body.items.map((i: { source_artifact_id: string }) => i.source_artifact_id),
      [ids[0]],
      'archived drafts are not selected',
    );
    const named = await alice.post(`/workspaces/${ws}/commit-preview`, { collection_id: col, artifact_ids: [ids[1]] });
    assert.equal(named.status, 400);
    assert.equal((await alice.post(`/artifacts/${ids[1]}/manage`, { action: 'unarchive' })).body.state, 'draft');
    assert.ok((await found()).includes(ids[1]), 'found again once unarchived');

    const gone = await alice.post(`/artifacts/${ids[1]}/manage`, { action: 'delete' });
    assert.deepEqual(gone.body, { action: 'delete', state: 'deleted', artifact: null });
    assert.equal((await alice.get(`/artifacts/${ids[1]}`)).status, 404);
    assert.equal((await alice.get(`/artifacts/${done.results[1].artifact_id}/versions/1`)).status, 200, 'its committed version stays');

    const onCommitted = await alice.post(`/artifacts/${done.results[0].artifact_id}/manage`, { action: 'archive' });
    assert.equal(onCommitted.status, 409);
    assert.equal(onCommitted.body.type, 'urn:platform:problem:immutable-artifact');
    const bad = await alice.post(`/artifacts/${ids[0]}/manage`, { action: 'shred' });
    assert.equal(bad.status, 400);
  });
});
