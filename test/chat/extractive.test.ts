// A chat turn with no language model configured (issue #36): still a workflow and a revision of the
// chat, and the answer is the top passages, said plainly, each cited; nothing found says so.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const chatType = 'application/vnd.platform.chat+json';
let platform: TestPlatform;
let alice: Api;
let ws: string;
let fact: string;

before(async () => {
  platform = await startPlatform({}, { worker: true });
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'plant' })).body.id;
  fact = (
    await alice.post('/artifacts', {
      title: 'Gearbox service',
      content_type: 'text/markdown',
      content: 'The gearbox oil is changed every 2000 hours.',
      collection_id: ws,
    })
  ).body.id;
  await eventually(async () =>
    (await alice.post('/artifacts/search', { query: 'gearbox oil changed' })).body.results.some((r: { id: string }) => r.id === fact),
  );
});
after(async () => {
  await platform?.close();
});

describe('a chat turn without a model', () => {
  it('answers with the top passages, said plainly, citing them', async () => {
    assert.equal(platform.config.LLM_MODEL, undefined);
    const chat = (
      await alice.post('/artifacts', {
        title: 'Chat',
        content_type: chatType,
        content: JSON.stringify({ sources: { workspace_ids: [ws] } }),
        collection_id: ws,
      })
    ).body.id;
    const reply = await alice.post(`/artifacts/${chat}/turns`, { message: 'How often is the gearbox oil changed?' });
    assert.equal(reply.status, 200, reply.text);
    const answer = reply.body.turns[1];
    assert.equal(answer.mode, 'extractive');
    assert.match(answer.note, /No language model is configured/);
    assert.ok(answer.content.startsWith(answer.note), 'the answer says first that it is passages');
    assert.match(answer.content, /\[1\] Gearbox service: The gearbox oil is changed every 2000 hours\./);
    assert.deepEqual(answer.citations, [{ artifact_id: fact, title: 'Gearbox service', ref: 1 }]);
    const stored = JSON.parse((await alice.get(`/artifacts/${chat}`)).body.content);
    assert.equal(stored.turns.length, 2);
    assert.deepEqual(stored.sources, { workspace_ids: [ws] });

    const nothing = await alice.post(`/artifacts/${chat}/turns`, { message: 'zebra xylophone quasar' });
    assert.equal(nothing.status, 200, nothing.text);
    // The previous question is searched with a follow-up, so this may still find the gearbox.
    assert.ok(['none', 'extractive'].includes(nothing.body.turns[1].mode));
  });

  it("searches only the chat's sources", async () => {
    const other = (await alice.post('/workspaces', { name: 'elsewhere' })).body.id;
    const chat = (
      await alice.post('/artifacts', {
        title: 'Chat',
        content_type: chatType,
        content: JSON.stringify({ sources: { workspace_ids: [other] } }),
        collection_id: ws,
      })
    ).body.id;
    const reply = await alice.post(`/artifacts/${chat}/turns`, { message: 'How often is the gearbox oil changed?' });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.turns[1].mode, 'none');
    assert.equal(reply.body.turns[1].content, 'Nothing you can read matches the question.');
  });
});
