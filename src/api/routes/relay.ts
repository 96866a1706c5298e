import { z } from 'zod';
import { relayHello, relayPoll, relayResult, relayStatuses, isConnected } from '../../operations/relay.js';
import { hostStatusListSchema, presentHostStatus } from '../../presenters/relay.js';
import { isDraining } from '../../operations/readiness.js';
import { helloRequest, helloResponse, pollRequest, pollResponse, resultRequest } from '../../relay-protocol/wire.js';
import { route, type RouteDef } from '../route.js';
import { parse } from '../validate.js';

const callParam = z.strictObject({ id: z.string().min(1).max(600) });
const hostsQuery = z.strictObject({ workspace_id: z.uuid().optional() });

/** A catalog listing of a thousand tools with their schemas, or a result near MCP_RESULT_MAX_BYTES, fits. */
const resultBodyLimit = 4 * 1024 * 1024;

/**
 * The desktop host relay's protocol (src/relay-protocol/wire.ts, docs/decisions.md "Desktop host
 * relay"), and the hosts' status. The relay's token is a server credential's, bound to a host.
 */
export const relayRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/relay/hello',
    access: 'artifact:read',
    doc: {
      summary: "A desktop host relay starts a session for its credential's host",
      description:
        "Made by the relay program (`npx platform-relay`), signed in with a server credential whose host_id names a host artifact. A new session ends the host's earlier one: calls it had taken and not answered fail as lost, never re-run.",
      response: helloResponse,
      errors: [403],
    },
    body: 'json',
    request: helloRequest,
    handler: async (ctx, _query, body) => {
      ctx.body = await relayHello(ctx, body());
    },
  }),
  route({
    method: 'post',
    path: '/relay/poll',
    access: 'artifact:read',
    doc: {
      summary: "The relay's heartbeat and long poll for its host's calls",
      description:
        'Answers at once with calls to run (each with its secrets, for it alone) or running calls to cancel, else after about 20 seconds with none. 409 `relay-session-replaced` when another relay process took the host over, `relay-session-unknown` when the session never said hello (say hello again with it).',
      response: pollResponse,
      errors: [403, 409],
    },
    body: 'json',
    request: pollRequest,
    handler: async (ctx, _query, body) => {
      const poll = body();
      // A draining API answers its waiting polls at once: the relays poll again, through another replica.
      ctx.body = await relayPoll(ctx, poll, () => ctx.req.socket.destroyed || isDraining(ctx.services));
    },
  }),
  route({
    method: 'post',
    path: '/relay/calls/:id/result',
    access: 'artifact:read',
    bodyLimit: resultBodyLimit,
    doc: {
      summary: "A relayed call's one answer",
      description:
        'The first answer recorded for a call is its answer. 409 `relay-call-decided` when the call was decided first (cancelled, timed out, or failed as lost), 409 `relay-call-not-yours` when another session took it.',
      status: 204,
      errors: [403, 404, 409],
    },
    body: 'json',
    request: resultRequest,
    handler: async (ctx, _query, body) => {
      const { id } = parse(callParam, ctx.params, 'path');
      await relayResult(ctx, id, body());
      ctx.status = 204;
    },
  }),
  route({
    method: 'get',
    path: '/relay/hosts',
    access: 'artifact:read',
    doc: {
      summary: 'Every host you can see, with its relay: connected or not, last seen, version, servers running, recent errors',
      response: hostStatusListSchema,
    },
    query: hostsQuery,
    handler: async (ctx, q) => {
      const now = Date.now();
      const hosts = await relayStatuses(ctx, q.workspace_id);
      ctx.body = {
        items: hosts.map(({ host, status }) => presentHostStatus(host, status, isConnected(status, now), ctx.state.principal.subject)),
      };
    },
  }),
];
