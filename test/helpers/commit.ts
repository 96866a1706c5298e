// Puts artifacts into a collection the only way the platform allows: drafts in a workspace, a commit,
// a person's approval, and the commit workflow applying it (needs the platform's worker running).
import assert from 'node:assert/strict';
import { eventually, type Api } from './http.js';

export interface Draft {
  title: string;
  content_type?: string;
  content?: string;
  context?: Record<string, unknown>;
}

/**
 * Commits `drafts` into `collectionId` as `author` (E on a workspace of their own, C on the
 * collection), approved by `approver` (default: the author); returns the collection artifacts' ids,
 * in the drafts' order.
 */
export async function commitInto(author: Api, collectionId: string, drafts: Draft[], approver: Api = author): Promise<string[]> {
  const ws = (await author.post('/workspaces', { name: 'staging' })).body.id as string;
  const sources: string[] = [];
  for (const { title, content_type = 'text/plain', content = title, context } of drafts) {
    const reply = await author.post('/artifacts', { title, content_type, content, collection_id: ws, ...(context ? { context } : {}) });
    assert.equal(reply.status, 201, reply.text);
    sources.push(reply.body.id);
  }
  const requested = await author.post(`/workspaces/${ws}/commits`, { collection_id: collectionId, message: 'test setup' });
  assert.equal(requested.status, 202, requested.text);
  const id = requested.body.id as string;
  const state = () => author.get(`/commits/${id}`).then((r) => r.body);
  await eventually(async () => (await state()).state === 'awaiting_approval', 30_000, `commit ${id} awaiting approval`);
  const approved = await approver.post(`/commits/${id}/approve`, {});
  assert.equal(approved.status, 200, approved.text);
  const committed = await eventually(
    async () => {
      const body = await state();
      return body.state === 'committed' ? body : null;
    },
    30_000,
    `commit ${id} committed`,
  );
  const made = new Map<string, string>(
    committed.results.map((r: { source_artifact_id: string; artifact_id: string }) => [r.source_artifact_id, r.artifact_id]),
  );
  return sources.map((s) => made.get(s)!);
}

/** Requests a commit of the workspace's drafts into the collection; returns its id once it awaits approval. */
export async function requestCommit(api: Api, ws: string, col: string, message: string): Promise<string> {
  const reply = await api.post(`/workspaces/${ws}/commits`, { collection_id: col, message });
  assert.equal(reply.status, 202, reply.text);
  const id = reply.body.id as string;
  await eventually(async () => (await api.get(`/commits/${id}`)).body.state === 'awaiting_approval', 30_000, `commit ${id} awaiting`);
  return id;
}
