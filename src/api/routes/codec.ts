import type { Payload } from '@temporalio/common';
import { z } from 'zod';
import { Problem, problems } from '../../kernel/errors/problem.js';
import { platformCodec } from '../../temporal/payload-codec.js';
import { PayloadCodecError } from '../../temporal/codec/encryption-codec.js';
import type { AppContext } from '../context.js';
import type { RouteDef } from '../route.js';
import { parse } from '../validate.js';

/** One payload as the Temporal UI and CLI send it (proto3 JSON): metadata values and data base64. */
const wirePayload = z.object({
  metadata: z.record(z.string().min(1).max(256), z.base64()).optional(),
  data: z.base64().optional(),
});
const codecRequest = z.strictObject({ payloads: z.array(wirePayload) });
type WirePayload = z.infer<typeof wirePayload>;

const fromWire = (p: WirePayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});
const toWire = (p: Payload): WirePayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

/** The request's payloads, after the namespace check: the UI names the namespace it shows, and only ours is served. */
function payloadsOf(ctx: AppContext): Payload[] {
  const { config } = ctx.services;
  const namespace = ctx.get('x-namespace');
  if (namespace && namespace !== config.TEMPORAL_NAMESPACE) {
    throw new Problem(
      403,
      'codec-namespace-refused',
      'Namespace not served',
      `This codec server serves namespace ${config.TEMPORAL_NAMESPACE}, not ${namespace}.`,
    );
  }
  const { payloads } = parse(codecRequest, ctx.state.body, 'body');
  if (payloads.length > config.CODEC_MAX_PAYLOADS) {
    throw problems.validation(`At most ${config.CODEC_MAX_PAYLOADS} payloads per request.`, [
      { name: 'payloads', reason: `must hold at most ${config.CODEC_MAX_PAYLOADS} payloads` },
    ]);
  }
  return payloads.map(fromWire);
}

function answer(ctx: AppContext, payloads: Payload[]): void {
  ctx.set('Cache-Control', 'no-store'); // decoded payloads are artifact content
  ctx.body = { payloads: payloads.map(toWire) };
}

/**
 * The codec server for the Temporal UI and CLI (the remote codec protocol): `POST /codec/decode` opens
 * sealed payloads, `POST /codec/encode` seals (the UI encodes what it sends: a signal's input). Payloads
 * hold every workspace's content, so only administrators (a person's own token) may call it.
 */
export const codecRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/codec/decode',
    access: 'admin',
    body: 'json',
    handler: async (ctx) => {
      const codec = platformCodec(ctx.services.config);
      try {
        answer(ctx, await codec.decode(payloadsOf(ctx)));
      } catch (err) {
        if (!(err instanceof PayloadCodecError)) throw err;
        const slug = err.reason === 'unknown-key' ? 'codec-unknown-key' : 'codec-undecodable';
        throw new Problem(422, slug, 'Payload cannot be decoded', err.message);
      }
    },
  },
  {
    method: 'post',
    path: '/codec/encode',
    access: 'admin',
    body: 'json',
    handler: async (ctx) => {
      answer(ctx, await platformCodec(ctx.services.config).encode(payloadsOf(ctx)));
    },
  },
];
