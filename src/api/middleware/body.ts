import type { Next } from 'koa';
import { Problem, problems } from '../../kernel/errors/problem.js';
import type { AppContext } from '../context.js';
import { jsonLimits, jsonViolation, pathName, type JsonRules } from '../../kernel/json/limits.js';

/**
 * json: a REST body; every string and key in it must be text (no U+0000, no unpaired surrogate).
 * json-rpc: the MCP endpoint's body, whose tools check their own inputs and answer a tool error.
 * Both are bounded in depth. form: application/x-www-form-urlencoded.
 */
export type BodyKind = 'json' | 'json-rpc' | 'form' | 'import';

/** An import's body (issue #33), read as bytes: its media type decides how (src/imports/request.ts). */
export interface RawBody {
  mediaType: string;
  contentType: string;
  raw: Buffer;
}

const mediaTypes = { json: 'application/json', form: 'application/x-www-form-urlencoded' };
const utf8 = new TextDecoder('utf-8', { fatal: true });

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
  const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
  if (kind === 'import') return { mediaType: type, contentType: ctx.get('content-type'), raw } satisfies RawBody;
  if (raw.length === 0 && kind !== 'form') return {};
  if (kind === 'form') {
    if (type !== mediaTypes.form) throw problems.unsupportedMediaType(mediaTypes.form);
    return checked(Object.fromEntries(new URLSearchParams(raw.toString('utf8'))), { maxDepth: 1, text: true });
  }
  if (type !== 'application/json' && !type.endsWith('+json')) throw problems.unsupportedMediaType(mediaTypes.json);
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw problems.malformedJson('The request body is not valid UTF-8.');
  }
  let body: unknown;
  try {
    // Not recursive in V8, so any depth parses; the depth is bounded just after, before anything that recurses.
    body = JSON.parse(text);
  } catch {
    throw problems.malformedJson();
  }
  return checked(body, { maxDepth: jsonLimits.bodyDepth, text: kind === 'json' });
}

/** The body, or a 400 naming the first value that breaks the rules. */
function checked<T>(body: T, rules: JsonRules): T {
  const bad = jsonViolation(body, rules);
  if (!bad) return body;
  const name = bad.path.length ? pathName(bad.path) : 'body';
  throw problems.validation(`body ${name}: ${bad.reason}.`, [{ name, reason: bad.reason }]);
}

/**
 * The status a request is counted under when its client hung up before sending it whole (nginx's 499,
 * "client closed request"): not a server error, so never 5xx. Nobody reads the answer.
 */
export const clientClosedStatus = 499;

export const clientClosedRequest = () =>
  new Problem(
    clientClosedStatus,
    'client-closed-request',
    'Client closed request',
    'The connection closed before the request body arrived whole.',
  );

/** Whether the request's client went away before sending it whole (Node then fails its stream with `aborted`). */
export function closedByClient(ctx: AppContext): boolean {
  return !ctx.req.complete && ctx.req.destroyed;
}

async function readLimited(ctx: AppContext, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // Past the limit the rest is drained, not kept, so the client reads our 413 instead of a reset.
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    }
  } catch (err) {
    if (closedByClient(ctx)) throw clientClosedRequest();
    throw err;
  }
  if (!ctx.req.complete) throw clientClosedRequest();
  if (size > limit) throw problems.payloadTooLarge(limit);
  return Buffer.concat(chunks);
}
