import type { FetchLike } from '../net/outbound.js';
import { clean } from './clean-text.js';
import type { ImportFile } from './extract.js';

/** A URL that gave no file: `unreachable` (network, status, deadline) or `too-large`. */
export class FetchFileError extends Error {
  constructor(
    readonly reason: 'unreachable' | 'too-large',
    message: string,
  ) {
    super(message);
    this.name = 'FetchFileError';
  }
}

/** How long fetching one URL may take, headers and body. */
const fetchDeadlineMs = 30_000;

/**
 * A URL of an import as a file: fetched with the platform's guarded client (no private, loopback or
 * link-local target unless MCP_OUTBOUND_ALLOW lists it, loopback also under MCP_OUTBOUND_LOOPBACK;
 * redirects checked the same way), under one
 * deadline, and read no further than `maxBytes`. The file's name is the URL path's last segment.
 */
export async function fetchFile(fetch: FetchLike, url: string, maxBytes: number, cancelled?: AbortSignal): Promise<ImportFile> {
  let response: Response;
  try {
    // The deadline, or the activity cancelled (its attempt timed out, the import stopped): the fetch ends.
    const deadline = AbortSignal.timeout(fetchDeadlineMs);
    response = await fetch(url, { signal: cancelled ? AbortSignal.any([deadline, cancelled]) : deadline, redirect: 'follow' });
  } catch (err) {
    throw new FetchFileError('unreachable', `${url} could not be fetched: ${(err as Error).message}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new FetchFileError('unreachable', `${url} answered HTTP ${response.status}.`);
  }
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new FetchFileError('too-large', `${url} is ${declared} bytes; an import takes files of up to ${maxBytes} bytes.`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length;
      if (size > maxBytes) {
        await response.body?.cancel().catch(() => {});
        throw new FetchFileError('too-large', `${url} is over ${maxBytes} bytes; an import takes files of up to ${maxBytes} bytes.`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof FetchFileError) throw err;
    throw new FetchFileError('unreachable', `${url} could not be read: ${(err as Error).message}`);
  }
  const path = new URL(url).pathname;
  const segment = path.slice(path.lastIndexOf('/') + 1);
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // not percent-encoded UTF-8 (`%ZZ`): the segment as it is
  }
  const name = clean(decoded).slice(0, 255) || new URL(url).hostname;
  return { name, contentType: response.headers.get('content-type') ?? undefined, bytes: Buffer.concat(chunks) };
}
