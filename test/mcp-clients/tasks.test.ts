// MCP tasks through an MCP client configuration's endpoint (issue #36): the endpoint offers only its
// tools, and a task is read or cancelled there only if one of them made it. A commit_workspace task made
// on /mcp by the same API key is unknown through a configuration without commit_workspace (tasks/get and
// tasks/cancel alike, and the cancel changes nothing), and found through one with it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { draft, newPerson, type Person } from '../helpers/console.js';
import { createApiKey } from '../helpers/credentials.js';
import { envelope, postMcp } from '../helpers/mcp-raw.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let person: Person;
let key: string;
let ws: string;
let col: string;
let settings: string; // where the configurations live, apart from the drafts a commit takes

before(async () => {
  platform = await startPlatform();
  person = await newPerson(platform);
  key = (await createApiKey(person.api, ['artifact:read', 'artifact:write', 'search:read'])).key;
  ws = (await person.api.post('/workspaces', { name: 'Task drafts' })).body.id as string;
  col = (await person.api.post('/collections', { name: 'Task notes' })).body.id as string;
  settings = (await person.api.post('/workspaces', { name: 'Connections' })).body.id as string;
});
after(() => platform?.close());

async function configuration(tools: string[], scopes: string[]): Promise<string> {
  const created = await person.api.post('/artifacts', {
    title: `Tools ${tools.join(' ')}`,
    content_type: 'application/vnd.platform.mcp-client+json',
    content: JSON.stringify({ workspaces: '*', collections: '*', tools, scopes, auth: { type: 'api_key' } }),
    collection_id: settings,
  });
  assert.equal(created.status, 201, created.text);
  return `${platform.url}/mcp/clients/${created.body.id}`;
}

const task = (url: string, method: string, taskId: string) => postMcp(url, key, { method, params: { taskId, _meta: envelope(true) } });

describe("tasks through an MCP client configuration's endpoint", () => {
  it("reads and cancels only the tasks its own tools made; another tool's task is unknown there", async () => {
    await draft(person.api, ws, 'Tasked', '# Tasked\n\nthrough a task\n');
    const made = await postMcp(`${platform.url}/mcp`, key, {
      method: 'tools/call',
      params: { name: 'commit_workspace', arguments: { workspace_id: ws, collection_id: col, message: 'by task' }, _meta: envelope(true) },
    });
    assert.equal(made.result?.resultType, 'task', JSON.stringify(made));
    const taskId = made.result!.taskId as string;

    // It grants artifact:write (commit_workspace's scope): only its tool list keeps the task from it.
    const readers = await configuration(['search', 'get_artifact'], ['artifact:read', 'artifact:write', 'search:read']);
    const committers = await configuration(['commit_workspace'], ['artifact:read', 'artifact:write']);

    for (const method of ['tasks/get', 'tasks/cancel']) {
      const refused = await task(readers, method, taskId);
      assert.ok(refused.error, `${method}: ${JSON.stringify(refused)}`);
      assert.match(refused.error.message, new RegExp(`Unknown task: ${taskId}`));
    }
    // The refused cancel changed nothing: the commit still waits for a person.
    const onMcp = await task(`${platform.url}/mcp`, 'tasks/get', taskId);
    assert.ok(['working', 'input_required'].includes(onMcp.result?.status), JSON.stringify(onMcp));

    const found = await task(committers, 'tasks/get', taskId);
    assert.equal(found.result?.taskId, taskId, JSON.stringify(found));
    assert.equal((await task(committers, 'tasks/cancel', taskId)).error, undefined);
  });
});
