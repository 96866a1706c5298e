import type { Next } from 'koa';
import { problems } from '../../errors/problem.js';
import type { AppContext } from '../context.js';

export type BodyKind = 'json' | 'form';

const mediaTypes: Record<BodyKind, string> = { json: 'application/json', form: 'application/x-www-form-urlencoded' };

/**
 * Reads and parses a request body of the route's declared kind into ctx.state.body, enforcing the
 * size limit before and while reading. Only routes that take a body use it, so a wrong route or
 * method is reported as such, not as a body problem.
 */
export function parseBody(kind: BodyKind, limit: number) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    ctx.state.body = await readBody(ctx, kind, limit);
    return next();
  };
}

/** Reads and parses the request body, throwing a problem (413, 415, 400) when it cannot. */
export async function readBody(ctx: AppContext, kind: BodyKind, limit: number): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw problems.payloadTooLarge(limit);
  const raw = await readLimited(ctx, limit);
  if (raw.length === 0 && kind === 'json') return {};
  const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
  const jsonLike = type === 'application/json' || type.endsWith('+json');
  if (kind === 'json' && !jsonLike) throw problems.unsupportedMediaType(mediaTypes.json);
  if (kind === 'form' && type !== mediaTypes.form) throw problems.unsupportedMediaType(mediaTypes.form);
  if (kind === 'form') return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw problems.malformedJson();
  }
}

async function readLimited(ctx: AppContext, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Past the limit the rest is drained, not kept, so the client reads our 413 instead of a reset.
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  if (size > limit) throw problems.payloadTooLarge(limit);
  return Buffer.concat(chunks);
}
