// A builder's script using the installed package, as test/contract/client-package.test.ts runs it: it is
// compiled with `tsc` against the package's .d.ts in a folder of its own (the `@ts-expect-error` lines
// must be errors there), then run against a real platform. It prints one JSON line of what it read.
//
//   PLATFORM_URL=… ADMIN_EMAIL=… ADMIN_PASSWORD=… node consumer.js
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ConnectionError,
  DeadlineError,
  PlatformClient,
  ProblemError,
  TokenError,
  type Answer,
  type Schema,
} from '@workspace-platform/client';

const baseUrl = process.env.PLATFORM_URL!;
const out: Record<string, unknown> = {};

/** The error a call throws, or a failure when it throws none. */
async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  throw new Error('the call did not fail');
}

// A person signs in with e-mail and password.
const person = new PlatformClient({ baseUrl, credentials: { email: process.env.ADMIN_EMAIL!, password: process.env.ADMIN_PASSWORD! } });
const me = await person.get('/me');
out.me = { kind: me.actor.kind, admin: me.is_admin, email: me.email };

// Typed bodies and answers: a workspace, a draft in it.
const ws = await person.post('/workspaces', { body: { name: 'Typed client', description: 'from the package' } });
const draft = await person.post('/artifacts', {
  body: {
    title: 'Telescope budget',
    content_type: 'text/markdown',
    content: '# Telescope budget\nMirrors and mounts.',
    collection_id: ws.id,
  },
});
const read: Schema<'Artifact'> | Answer<'/artifacts/{id}', 'get'> = await person.get('/artifacts/{id}', { params: { id: draft.id } });
const withEtag = await person.send('get', '/artifacts/{id}', { params: { id: draft.id } });
out.workspace = { id: ws.id, name: ws.name };
out.artifact = { id: draft.id, title: read.title, revision: draft.revision, etag: withEtag.headers.get('etag') };
const page = await person.get('/artifacts', { query: { collection_id: ws.id, limit: 10 } });
out.listed = page.items.map((a) => a.title);

// An API key for search, sent as it is.
const key = await person.post('/api-keys', { body: { name: 'typed client', scopes: ['artifact:read', 'search:read'] } });
const reader = new PlatformClient({ baseUrl, credentials: { apiKey: key.key }, timeoutMs: 10_000 });
let hits: string[] = [];
for (let i = 0; i < 300 && !hits.includes(draft.id); i++) {
  const found = await reader.post('/artifacts/search', { body: { query: 'telescope mirrors', limit: 5 } });
  hits = found.results.map((r) => r.id);
  if (!hits.includes(draft.id)) await new Promise((r) => setTimeout(r, 200));
}
out.search = { found: hits.includes(draft.id), by: (await reader.get('/me')).actor.kind };

// A server credential: client credentials exchanged once, the token reused.
const credential = await person.post('/server-credentials', {
  body: { client_id: 'typed-client', name: 'Typed client', server_id: 'typed', host_id: 'typed', scopes: ['artifact:read'] },
});
let exchanges = 0;
const server = new PlatformClient({
  baseUrl,
  credentials: { clientId: credential.client_id, clientSecret: credential.client_secret! },
  fetch: (input, init) => {
    if (String(input).endsWith('/auth/token')) exchanges++;
    return fetch(input, init);
  },
});
const [a, b] = await Promise.all([server.get('/me'), server.get('/me')]);
await server.get('/workspaces');
out.server = { kind: a.actor.kind, same: a.id === b.id, exchanges };

// Errors are typed: problem+json, OAuth's token errors, a deadline, no platform.
const missing = await failure(() => person.get('/artifacts/{id}', { params: { id: '00000000-0000-4000-8000-000000000000' } }));
const invalid = await failure(() => person.post('/workspaces', { body: { name: '' } }));
const refused = await failure(() => reader.post('/workspaces', { body: { name: 'not with a read key' } }));
const badSecret = await failure(() =>
  new PlatformClient({ baseUrl, credentials: { clientId: credential.client_id, clientSecret: 'wrong' } }).get('/me'),
);
const badKey = await failure(() => new PlatformClient({ baseUrl, credentials: { apiKey: 'pk_wrong' } }).get('/me'));
const describe = (err: unknown) =>
  err instanceof ProblemError
    ? {
        class: 'ProblemError',
        status: err.status,
        slug: err.slug,
        params: err.invalidParams.map((p) => p.name),
        requestId: !!err.requestId,
      }
    : err instanceof TokenError
      ? { class: 'TokenError', status: err.status, error: err.error }
      : { class: (err as Error).name, message: (err as Error).message };
out.errors = {
  missing: describe(missing),
  invalid: describe(invalid),
  refused: describe(refused),
  badSecret: describe(badSecret),
  badKey: describe(badKey),
};

// A platform that never answers: the deadline ends the call. A closed port: a ConnectionError.
const silent = createServer(() => undefined);
await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
const silentPort = (silent.address() as AddressInfo).port;
const stalled = new PlatformClient({ baseUrl: `http://127.0.0.1:${silentPort}`, credentials: { apiKey: 'pk_x' } });
const started = Date.now();
const late = await failure(() => stalled.get('/me', { timeoutMs: 300 }));
out.deadline = { class: late instanceof DeadlineError ? 'DeadlineError' : String(late), ms: Date.now() - started };
silent.closeAllConnections();
await new Promise((r) => silent.close(r));
const gone = await failure(() =>
  new PlatformClient({ baseUrl: `http://127.0.0.1:${silentPort}`, credentials: { apiKey: 'pk_x' } }).get('/me'),
);
out.connection = gone instanceof ConnectionError ? 'ConnectionError' : String(gone);

// What the types refuse (each line must be a compile error).
// @ts-expect-error: no such path
await failure(() => person.get('/no-such-path'));
// @ts-expect-error: the path parameter is required
await failure(() => person.get('/artifacts/{id}'));
// @ts-expect-error: POST /workspaces takes a body with a name
await failure(() => person.post('/workspaces', { body: { title: 'x' } }));
// @ts-expect-error: a Workspace has no content_type
out.never = ws.content_type;

console.log(JSON.stringify(out));
