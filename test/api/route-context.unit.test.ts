// The handler context follows the route's access (src/api/route.ts): behind any access but 'public'
// the principal is there, so no handler needs `ctx.state.principal!`; on a public route it may be
// absent, and reading it unchecked does not compile. The @ts-expect-error lines are the test: `npx
// tsc --noEmit -p .` fails when a public route's principal stops being optional or another's starts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../src/identity/principal.js';
import { route, type RouteDef } from '../../src/api/route.js';

const subjectOf = (p: Principal) => p.subject;

const routes: RouteDef[] = [
  route({
    method: 'get',
    path: '/a',
    access: 'human',
    handler: (ctx) => {
      ctx.body = subjectOf(ctx.state.principal);
    },
  }),
  {
    method: 'get',
    path: '/b',
    access: 'artifact:read',
    handler: (ctx) => {
      ctx.body = subjectOf(ctx.state.principal);
    },
  },
  route({
    method: 'get',
    path: '/c',
    access: 'public',
    handler: (ctx) => {
      // @ts-expect-error: a public route has no principal for sure
      ctx.body = subjectOf(ctx.state.principal);
    },
  }),
  {
    method: 'get',
    path: '/d',
    access: 'public',
    handler: (ctx) => {
      // @ts-expect-error: nor does one declared without route()
      ctx.body = subjectOf(ctx.state.principal);
    },
  },
];

describe('route access and handler context', () => {
  it('types every table entry (the checks are the compiler’s)', () => {
    assert.deepEqual(
      routes.map((r) => r.access),
      ['human', 'artifact:read', 'public', 'public'],
    );
  });
});
