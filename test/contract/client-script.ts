// A client of the REST API written the way an integrator writes one: against the types that
// openapi-typescript generates from GET /openapi.json (./openapi.ts), without a cast on any answer.
// test/contract/generated-client.test.ts generates those types from a running platform and compiles
// this file against them with `tsc --noEmit`: a route whose answer the document does not describe
// gives `unknown` (or `never` for an undeclared status), and reading a field of it fails to compile.
// test/contract/responses.test.ts runs `session` against the platform, every answer checked against
// its declared schema, so the fields read here exist in real answers too.
import type { components, paths } from './openapi.js';

type Method = 'get' | 'post' | 'patch' | 'delete';
type Schemas = components['schemas'];

/** The JSON body a route answers with `status`. */
export type Answer<P extends keyof paths, M extends Method, S extends number = 200> = paths[P] extends {
  [K in M]: { responses: infer R };
}
  ? S extends keyof R
    ? R[S] extends { content: { 'application/json': infer B } }
      ? B
      : never
    : never
  : never;

/** The JSON body a route takes. */
export type RequestBody<P extends keyof paths, M extends Method> = paths[P] extends {
  [K in M]: { requestBody?: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

/** How requests reach the API: a token-holding HTTP client (fetch, or the tests' checking one). */
export interface Transport {
  request(method: string, path: string, init?: { body?: unknown }): Promise<{ status: number; body: unknown }>;
}

/** Answers an HTTP status this client did not expect. */
export class UnexpectedStatus extends Error {}

/** Calls `method template` with its path parameters filled in; the answer typed by the document for `status`. */
async function call<P extends keyof paths & string, M extends Method, S extends number = 200>(
  api: Transport,
  method: M,
  template: P,
  options: { params?: Record<string, string>; query?: string; body?: RequestBody<P, M>; status?: S } = {},
): Promise<Answer<P, M, S>> {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(options.params?.[name] ?? ''));
  const reply = await api.request(method.toUpperCase(), path + (options.query ? `?${options.query}` : ''), { body: options.body });
  if (reply.status !== (options.status ?? 200))
    throw new UnexpectedStatus(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as Answer<P, M, S>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls a commit until it leaves `state`. */
async function commitAfter(api: Transport, id: string, state: Schemas['Commit']['state']): Promise<Schemas['Commit']> {
  for (let i = 0; i < 300; i++) {
    const commit = await call(api, 'get', '/commits/{id}', { params: { id } });
    if (commit.state !== state) return commit;
    await sleep(200);
  }
  throw new Error(`commit ${id} stayed ${state}`);
}

/** What an artifact says of itself, whichever kind GET /artifacts/{id} answered with. */
function describeArtifact(a: Answer<'/artifacts/{id}', 'get'>): string {
  if (a.container === null) return `${a.title} (built in, ${a.content_type})`;
  return `${a.title} r${a.revision} ${a.state} in ${a.container} ${a.collection_id}, by ${a.provenance.updated_by} via ${a.provenance.source.kind}`;
}

/** What an invocation says of itself: an agent run, a transform run or an MCP call. */
function describeInvocation(run: Schemas['AgentRun'] | Schemas['TransformRun'] | Schemas['ToolCall']): string {
  if ('actions' in run)
    return `${run.agent.name} ${run.status}: ${run.actions.map((a) => `${a.id} ${a.kind} ${a.status}${a.content_diff ? ' (diff)' : ''}`).join(', ')}`;
  if ('steps' in run) return `transform ${run.status} at ${run.current_step ?? '-'}: ${run.steps.map((s) => s.status).join(', ')}`;
  return `${run.kind} ${run.tool ?? run.uri ?? ''} ${run.status}${run.result ? ' with a result' : ''}`;
}

/**
 * A person's first session: workspaces and a collection, drafts and their history, search, a commit
 * approved into the collection and its versions, archive and unarchive, secrets and API keys, an
 * agent's proposals discarded, the platform toolset's tools. Returns what it read, line by line.
 */
export async function session(api: Transport): Promise<string[]> {
  const lines: string[] = [];
  const me = await call(api, 'get', '/me');
  lines.push(`me ${me.id} ${me.actor.kind} admin=${me.is_admin} scopes=${me.scopes.length} ${me.email ?? ''}`);

  const ws = await call(api, 'post', '/workspaces', { body: { name: 'Research', description: 'notes' }, status: 201 });
  const coll = await call(api, 'post', '/collections', { body: { name: 'Published' }, status: 201 });
  const renamed = await call(api, 'patch', '/workspaces/{id}', { params: { id: ws.id }, body: { description: 'notes and sources' } });
  lines.push(`workspace ${ws.id} ${ws.kind} owned by ${ws.owner_id}: ${renamed.description}, since ${renamed.created_at}`);
  const spaces = await call(api, 'get', '/workspaces', { query: 'limit=10' });
  lines.push(`workspaces ${spaces.items.map((w) => w.name).join(', ')} next=${spaces.next_cursor ?? 'none'}`);
  const collection = await call(api, 'get', '/collections/{id}', { params: { id: coll.id } });
  lines.push(`collection ${collection.name} ${JSON.stringify(collection.metadata)}`);

  const draft = await call(api, 'post', '/artifacts', {
    body: { title: 'Budget', content_type: 'text/markdown', content: '# Budget\nThe travel budget.', collection_id: ws.id },
    status: 201,
  });
  const second = await call(api, 'post', '/artifacts', {
    body: { title: 'Hiring', content_type: 'text/markdown', content: '# Hiring\nTwo engineers.', collection_id: ws.id },
    status: 201,
  });
  const edited = await call(api, 'patch', '/artifacts/{id}', { params: { id: draft.id }, body: { title: 'Budget 2027' } });
  lines.push(
    `draft ${draft.id} r${draft.revision} → r${edited.revision} ${edited.state} key ${edited.order_key}, by ${edited.provenance.created_by}`,
  );
  const moved = await call(api, 'post', '/artifacts/{id}/move', { params: { id: second.id }, body: { after_id: null } });
  lines.push(`moved ${moved.title} to ${moved.order_key}`);
  lines.push(describeArtifact(await call(api, 'get', '/artifacts/{id}', { params: { id: draft.id } })));
  const drafts = await call(api, 'get', '/artifacts', { query: `collection_id=${ws.id}&limit=50` });
  lines.push(`drafts ${drafts.items.map((a) => `${a.title}:${a.content_type}:${a.archived_at ?? 'live'}`).join(', ')}`);

  const revisions = await call(api, 'get', '/artifacts/{id}/revisions', { params: { id: draft.id } });
  lines.push(`revisions ${revisions.items.map((r) => `${r.revision}:${r.state}:${r.title ?? '?'}`).join(', ')}`);
  const first = await call(api, 'get', '/artifacts/{id}/revisions/{n}', { params: { id: draft.id, n: '1' } });
  lines.push(`revision 1 ${first.title} ${first.content?.length ?? 0} chars at ${first.claimed_at} by ${first.provenance?.created_by}`);
  const events = await call(api, 'get', '/workspaces/{id}/events', { params: { id: ws.id } });
  lines.push(`events ${events.items.map((e) => `${e.seq ?? '?'}:${e.kind}:${e.artifact_id}:${(e.changed ?? []).join('+')}`).join(', ')}`);

  const found = await call(api, 'post', '/artifacts/search', { body: { query: 'budget', limit: 5 } });
  lines.push(
    `search "${found.query}" (${found.preset}) ${found.took_ms} ms: ${found.results.map((r) => `${r.title} ${r.container.kind} ${r.score.toFixed(4)} ${Object.keys(r.retrievers).join('+')}`).join('; ')}` +
      ` lexical ${found.retrievers.lexical.candidates}, semantic ${found.retrievers.semantic.kept}/${found.retrievers.semantic.candidates} by ${found.retrievers.semantic.embedder}`,
  );

  const preview = await call(api, 'post', '/workspaces/{id}/commit-preview', { params: { id: ws.id }, body: { collection_id: coll.id } });
  lines.push(
    `preview new=${preview.counts.new} modified=${preview.counts.modified}: ${preview.items.map((i) => `${i.title} ${i.status} v${i.version} ${i.changed_fields.join('+')} ${i.content_diff?.length ?? 0}${i.not_committable ?? ''}`).join(', ')}`,
  );
  const requested = await call(api, 'post', '/workspaces/{id}/commits', {
    params: { id: ws.id },
    body: { collection_id: coll.id, message: 'First publication' },
    status: 202,
  });
  lines.push(
    `commit ${requested.id} ${requested.state} ${requested.selection} of ${requested.artifact_ids.length}, by ${requested.requested_by}`,
  );
  const pending = await commitAfter(api, requested.id, 'previewing');
  lines.push(
    `commit ${pending.state} until ${pending.expires_at}: ${(pending.preview?.items ?? []).map((i) => `${i.title} ${i.status}`).join(', ')}`,
  );
  const items = await call(api, 'get', '/commits/{id}/items', { params: { id: requested.id } });
  lines.push(
    `items ${items.items.map((i) => `${i.artifact_id} ${i.status} ${Object.keys(i.changes ?? {}).join('+')} ${i.content_diff ?? ''}`.length).join(', ')}`,
  );
  const approved = await call(api, 'post', '/commits/{id}/approve', { params: { id: requested.id }, body: { comment: 'Looks right' } });
  lines.push(`approved by ${approved.decision?.by} (${approved.decision?.comment}) at ${approved.decision?.at}`);
  const committed = await commitAfter(api, requested.id, 'applying');
  const results = committed.results ?? [];
  lines.push(
    `commit ${committed.state} ${committed.progress.applied}/${committed.progress.total}: ${results.map((r) => `${r.artifact_id} v${r.version}`).join(', ')}`,
  );
  const commits = await call(api, 'get', '/commits', { query: `workspace_id=${ws.id}` });
  lines.push(`commits ${commits.items.map((c) => `${c.message}: ${c.state} ${c.preview?.counts.new ?? 0} new`).join(', ')}`);

  const published = results[0]?.artifact_id;
  if (published) {
    const versions = await call(api, 'get', '/artifacts/{id}/versions', { params: { id: published } });
    lines.push(
      `versions ${versions.items.map((v) => `v${v.version} ${v.title} approved by ${v.provenance.approved_by} in ${v.provenance.commit_id}`).join(', ')}`,
    );
    const v1 = await call(api, 'get', '/artifacts/{id}/versions/{n}', { params: { id: published, n: '1' } });
    lines.push(
      `version 1: ${v1.content?.split('\n')[0]} from ${v1.provenance.source_artifact_id} r${v1.provenance.source_revision} at ${v1.provenance.committed_at}`,
    );
    const opened = await call(api, 'post', '/artifacts/{id}/open', { params: { id: published } });
    lines.push(`opened ${opened.artifact.title}: viewer ${opened.viewer?.uri ?? 'none'}, on_open ${opened.on_open.status}`);
  }

  const archived = await call(api, 'post', '/artifacts/{id}/manage', { params: { id: second.id }, body: { action: 'archive' } });
  lines.push(`${archived.action}: ${archived.state} since ${archived.artifact?.archived_at}`);
  const restored = await call(api, 'post', '/artifacts/{id}/manage', { params: { id: second.id }, body: { action: 'unarchive' } });
  lines.push(`${restored.action}: ${restored.state} r${restored.artifact?.revision}`);

  const secret = await call(api, 'post', '/secrets', { body: { name: 'crm-token', value: 's3cret' }, status: 201 });
  const secrets = await call(api, 'get', '/secrets');
  const named = await call(api, 'get', '/secrets/{id}', { params: { id: secret.id } });
  lines.push(`secrets ${secrets.items.map((s) => s.name).join(', ')}; ${named.name} since ${named.created_at}`);
  const key = await call(api, 'post', '/api-keys', { body: { name: 'export', scopes: ['artifact:read'] }, status: 201 });
  const keys = await call(api, 'get', '/api-keys');
  lines.push(
    `key ${key.key.slice(0, 3)}… ${keys.items.map((k) => `${k.name} ${k.scopes.join(' ')} ${JSON.stringify(k.resource_filters.workspaces)} ${k.last_used_at ?? 'unused'}`).join(', ')}`,
  );

  const agents = await call(api, 'get', '/agents');
  const tagger = agents.items.find((a) => a.name === 'tag-keywords');
  lines.push(`agents ${agents.items.map((a) => `${a.name} (${a.mode}${a.uses_llm ? ', llm' : ''}: ${a.actions.join('/')})`).join(', ')}`);
  if (tagger) {
    const run = await call(api, 'post', '/artifacts/{id}/invoke', {
      params: { id: tagger.id },
      body: { workspace_id: ws.id, artifact_ids: [draft.id], params: { rules: { finance: ['budget'] } }, wait_seconds: 60 },
    });
    lines.push(describeInvocation(run));
    if (run.invocation_id) {
      lines.push(describeInvocation(await call(api, 'get', '/invocations/{id}', { params: { id: run.invocation_id } })));
      const discarded = await call(api, 'post', '/invocations/{id}/discard', { params: { id: run.invocation_id } });
      lines.push(`${discarded.status} by ${discarded.decision?.by} (${discarded.progress.applied}/${discarded.progress.total} applied)`);
    }
  }

  const catalog = await call(api, 'get', '/mcp/servers');
  const toolset = catalog.servers.find((s) => s.builtin);
  lines.push(
    `servers ${catalog.servers.map((s) => `${s.title} ${s.transport} ${s.health.status} ${s.tools.length} tools`).join(', ')} truncated=${catalog.truncated}`,
  );
  if (toolset) {
    const called = await call(api, 'post', '/artifacts/{id}/invoke', {
      params: { id: toolset.id },
      body: { name: 'browse_workspaces', arguments: {} },
    });
    lines.push(describeInvocation(called));
    lines.push(describeArtifact(await call(api, 'get', '/artifacts/{id}', { params: { id: toolset.id } })));
  }
  const stdio = await call(api, 'get', '/mcp/stdio-catalog');
  lines.push(
    `stdio ${stdio.available ? stdio.entries.map((e) => `${e.id} ${e.command} ${e.args.length}`).join(', ') : `off: ${stdio.reason}`}`,
  );
  return lines;
}
