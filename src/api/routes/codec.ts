import type { Payload } from '@temporalio/common';
import { z } from 'zod';
import { Problem, problems } from '../../kernel/errors/problem.js';
import { platformCodec } from '../../temporal/payload-codec.js';
import { PayloadCodecError } from '../../temporal/codec/encryption-codec.js';
import type { AppContext } from '../context.js';
import { codecOrigins, codecSessionPrefix } from '../middleware/codec-cors.js';
import { readSession } from '../oauth/browser.js';
import { sessionAdministrator } from '../../operations/authorizations.js';
import type { RouteDef } from '../route.js';
import { parse } from '../validate.js';

/** One payload as the Temporal UI and CLI send it (proto3 JSON): metadata values and data base64. */
const wirePayload = z.object({
  metadata: z.record(z.string().min(1).max(256), z.base64()).optional(),
  data: z.base64().optional(),
});
/** No payloads at all is `{}`: proto3 JSON leaves out an empty list (the CLI sends it so). */
const codecRequest = z.strictObject({ payloads: z.array(wirePayload).default([]) });
type WirePayload = z.infer<typeof wirePayload>;
/**
 * The query the Temporal UI sends (2.54: `?preserveStorageRefs=true` on every call): a codec that
 * resolves external storage references would leave them as they are. The platform stores no payload
 * outside Temporal, so a reference (which it never writes) comes back as it is whatever the value.
 * Any other parameter is still a 400 naming it.
 */
const codecQuery = z.object({ preserveStorageRefs: z.enum(['true', 'false']).optional() });

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

async function decode(ctx: AppContext): Promise<void> {
  const codec = platformCodec(ctx.services.config);
  try {
    answer(ctx, await codec.decode(payloadsOf(ctx)));
  } catch (err) {
    if (!(err instanceof PayloadCodecError)) throw err;
    const slug = err.reason === 'unknown-key' ? 'codec-unknown-key' : 'codec-undecodable';
    throw new Problem(422, slug, 'Payload cannot be decoded', err.message);
  }
}

async function encode(ctx: AppContext): Promise<void> {
  answer(ctx, await platformCodec(ctx.services.config).encode(payloadsOf(ctx)));
}

/**
 * For the session routes: the request comes from a configured Temporal UI origin (so no other page can
 * make a signed-in browser send it) and carries the platform's sign-in session cookie of an administrator.
 */
/** The session routes answer the configured Temporal UI origins only: checked before the body is read (their guard), and again with the session. */
function uiOrigin(ctx: AppContext): void {
  const origin = ctx.get('origin');
  if (!origin || !codecOrigins(ctx.services.config.CODEC_ALLOWED_ORIGINS).includes(origin)) {
    throw problems.forbidden('The session codec endpoint answers only the Temporal UI origins of CODEC_ALLOWED_ORIGINS.');
  }
}

async function sessionOperator(ctx: AppContext): Promise<void> {
  uiOrigin(ctx);
  await sessionAdministrator(ctx.services, readSession(ctx));
}

const payloadsDoc = z.object({ payloads: z.array(wirePayload) });
const example = { payloads: [{ metadata: { encoding: 'anNvbi9wbGFpbg==' }, data: 'eyJoZWxsbyI6IndvcmxkIn0=' }] };
const decodeDoc = {
  tags: ['codec'],
  summary: 'Decode Temporal payloads (the remote codec protocol)',
  description: 'Opens payloads sealed by the platform (`binary/encrypted`); others come back as they are. Refuses another X-Namespace.',
  response: payloadsDoc,
  errors: [422],
  example,
};
const encodeDoc = {
  tags: ['codec'],
  summary: 'Encode Temporal payloads (the remote codec protocol)',
  description: 'Seals payloads as the platform does (what the Temporal UI sends: a signal input). Refuses another X-Namespace.',
  response: payloadsDoc,
  example,
};
/**
 * A batch of payloads as the UI and the CLI send them: each up to Temporal's 2 MB blob limit, sealed
 * and in base64 a third larger, so more than MAX_BODY_BYTES (1 MiB by default) must be taken here.
 */
const codecBodyLimit = 16 * 1024 * 1024;
const sessionNote = ' With the platform session cookie of an administrator, from an origin of CODEC_ALLOWED_ORIGINS only.';

/**
 * The codec server for the Temporal UI and CLI (the remote codec protocol): `POST /codec/decode` opens
 * sealed payloads, `POST /codec/encode` seals (the UI encodes what it sends: a signal's input). Payloads
 * hold every workspace's content, so only administrators may call it: with their own bearer token (the
 * CLI's --codec-auth, a UI that passes its access token), or, under /codec/session/, from a configured
 * Temporal UI origin with the platform's session cookie (a UI without sign-in of its own, such as the
 * dev server's, with "include cross-origin credentials").
 */
export const codecRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/codec/decode',
    access: 'admin',
    query: codecQuery,
    body: 'json',
    bodyLimit: codecBodyLimit,
    request: codecRequest,
    doc: decodeDoc,
    handler: decode,
  },
  {
    method: 'post',
    path: '/codec/encode',
    access: 'admin',
    query: codecQuery,
    body: 'json',
    bodyLimit: codecBodyLimit,
    request: codecRequest,
    doc: encodeDoc,
    handler: encode,
  },
  {
    method: 'post',
    path: `${codecSessionPrefix}decode`,
    access: 'public',
    guard: uiOrigin,
    query: codecQuery,
    body: 'json',
    bodyLimit: codecBodyLimit,
    request: codecRequest,
    doc: { ...decodeDoc, description: decodeDoc.description + sessionNote, errors: [401, 403, 422] },
    handler: async (ctx) => (await sessionOperator(ctx), decode(ctx)),
  },
  {
    method: 'post',
    path: `${codecSessionPrefix}encode`,
    access: 'public',
    guard: uiOrigin,
    query: codecQuery,
    body: 'json',
    bodyLimit: codecBodyLimit,
    request: codecRequest,
    doc: { ...encodeDoc, description: encodeDoc.description + sessionNote, errors: [401, 403] },
    handler: async (ctx) => (await sessionOperator(ctx), encode(ctx)),
  },
];
