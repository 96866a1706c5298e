// What an import request sends, read into items (issue #33): a JSON array of documents (or an object
// with `items` and `urls`), NDJSON (one document or `{url}` per line), or multipart files. Structure
// errors (not JSON at all, too many items, an unknown media type) refuse the request; an item that is
// wrong on its own is kept as `invalid` and reported with the import's outcomes, so one bad line does
// not cost a thousand good ones.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { problems } from '../kernel/errors/problem.js';
import { storableObject, text } from '../kernel/json/schemas.js';
import { jsonLimits, jsonViolation, pathName } from '../kernel/json/limits.js';
import type { StagedItem } from '../store/imports.js';
import { clean } from './clean-text.js';

export type ItemSource = StagedItem['item'];
export interface RequestItem {
  key: string;
  item: ItemSource;
}

const mimeLike = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(\s*;.*)?$/i;
/** Keys the platform derives (a content hash, a URL) have prefixes of their own: a key you give cannot take one over. */
const key = text(
  z
    .string()
    .min(1)
    .max(512)
    .refine((k) => !/^(sha256|url):/.test(k), 'must not start with sha256: or url: (the keys the platform derives)'),
);

/** One document of a JSON or NDJSON import: what `POST /artifacts` takes, with an optional item key. */
export const importDocument = z.strictObject({
  key: key.optional(),
  title: text(z.string().trim().min(1).max(500)),
  content_type: text(z.string().max(255).regex(mimeLike, 'must be a MIME type such as text/markdown')),
  content: text(),
  context: storableObject.default({}),
});
/** A file to fetch: its key defaults to the URL. */
export const importUrl = z.strictObject({ key: key.optional(), url: z.url({ protocol: /^https?$/ }).max(2048) });
const importLine = z.union([importUrl, importDocument]);
export const importBody = z.union([
  z.array(z.unknown()),
  z.strictObject({ items: z.array(z.unknown()).optional(), urls: z.array(z.unknown()).optional() }),
]);

export const ndjsonTypes = ['application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/x-jsonlines'];
export const importMediaTypes = ['application/json', ...ndjsonTypes, 'multipart/form-data'];

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** A document's default key: its content, so the same document imported again is skipped, not doubled. */
const documentKey = (d: { title: string; content_type: string; content: string }) =>
  `sha256:${sha256(`${d.title}\u0000${d.content_type}\u0000${d.content}`)}`;

const invalid = (reason: string, message: string): ItemSource => ({ kind: 'invalid', reason, message });

/** One JSON value as an item: a document or a URL, or why it is neither. */
function itemOf(value: unknown, where: string, maxItemBytes: number): RequestItem {
  const bad = jsonViolation(value, { maxDepth: jsonLimits.bodyDepth, text: true });
  if (bad) return { key: `invalid:${where}`, item: invalid('invalid-item', `${where}: ${pathName(bad.path)}: ${bad.reason}.`) };
  const parsed = importLine.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.join('.') : 'item';
    return { key: `invalid:${where}`, item: invalid('invalid-item', `${where}: ${field}: ${issue.message}`) };
  }
  const v = parsed.data;
  if ('url' in v) return { key: v.key ?? `url:${v.url}`, item: { kind: 'url', url: v.url } };
  const k = v.key ?? documentKey(v);
  if (Buffer.byteLength(v.content) > maxItemBytes)
    return { key: k, item: invalid('too-large', `${where}: content is over ${maxItemBytes} bytes.`) };
  return { key: k, item: { kind: 'document', title: v.title, content_type: v.content_type, content: v.content, context: v.context } };
}

/** Plain (non-file) fields a multipart import may carry besides its files; they are ignored. */
const maxPlainFields = 100;

export interface ReadLimits {
  maxItems: number;
  maxItemBytes: number;
}

function tooMany(limits: ReadLimits): never {
  throw problems.validation(`An import holds at most ${limits.maxItems} items (IMPORT_MAX_ITEMS); split it.`, [
    { name: 'body', reason: `more than ${limits.maxItems} items` },
  ]);
}

/** The items of a request body of `mediaType` (its parameters stripped); throws a problem for a body that is no import at all. */
export async function readImport(
  mediaType: string,
  contentType: string,
  raw: Buffer,
  limits: ReadLimits,
): Promise<{ source: 'json' | 'ndjson' | 'files' | 'urls'; items: RequestItem[] }> {
  if (mediaType === 'multipart/form-data') return { source: 'files', items: await readFiles(contentType, raw, limits) };
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let body: string;
  try {
    body = utf8.decode(raw);
  } catch {
    throw problems.malformedJson('The request body is not valid UTF-8.');
  }
  if (ndjsonTypes.includes(mediaType)) {
    const items: RequestItem[] = [];
    // Line by line (no array of every line first), refused as soon as there are too many.
    for (let start = 0, i = 0; start <= body.length; i++) {
      const end = body.indexOf('\n', start);
      const line = body.slice(start, end < 0 ? body.length : end);
      start = end < 0 ? body.length + 1 : end + 1;
      if (line.trim() === '') continue;
      if (items.length >= limits.maxItems) tooMany(limits);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        items.push({ key: `invalid:line ${i + 1}`, item: invalid('invalid-json', `line ${i + 1} is not JSON.`) });
        continue;
      }
      items.push(itemOf(value, `line ${i + 1}`, limits.maxItemBytes));
    }
    return { source: 'ndjson', items };
  }
  if (mediaType !== 'application/json') throw problems.unsupportedMediaType(importMediaTypes.join(', '));
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw problems.malformedJson();
  }
  const parsed = importBody.safeParse(value);
  if (!parsed.success)
    throw problems.validation('Send a JSON array of documents, or {"items": [documents], "urls": [{"url": …}]}.', [
      { name: 'body', reason: 'is not an import' },
    ]);
  const documents = Array.isArray(parsed.data) ? parsed.data : (parsed.data.items ?? []);
  const urls = Array.isArray(parsed.data) ? [] : (parsed.data.urls ?? []);
  if (documents.length + urls.length > limits.maxItems) tooMany(limits);
  const items = [
    ...documents.map((d, i) => itemOf(d, `items[${i}]`, limits.maxItemBytes)),
    ...urls.map((u, i) => {
      const item = itemOf(u, `urls[${i}]`, limits.maxItemBytes);
      return item.item.kind === 'document' ? { key: item.key, item: invalid('invalid-item', `urls[${i}]: is not {"url": …}.`) } : item;
    }),
  ];
  return { source: urls.length > 0 && documents.length === 0 ? 'urls' : 'json', items };
}

/** Multipart: every file part is one item, named by its file name; its key is its bytes' hash. */
async function readFiles(contentType: string, raw: Buffer, limits: ReadLimits): Promise<RequestItem[]> {
  // The parts counted before they are parsed: a body of many tiny parts would hold the event loop
  // while the whole form is built (260,000 parts: 9.5 s), only to be refused for its count after.
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary)
    throw problems.validation('The multipart body names no boundary.', [{ name: 'body', reason: 'is not multipart/form-data' }]);
  const delimiter = Buffer.from(`--${boundary}`);
  let parts = -1; // the closing delimiter ends the last part
  for (let at = raw.indexOf(delimiter); at >= 0; at = raw.indexOf(delimiter, at + delimiter.length)) {
    if (++parts > limits.maxItems + maxPlainFields) tooMany(limits);
  }
  let form: FormData;
  try {
    form = await new Response(new Blob([new Uint8Array(raw)]), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw problems.validation('The multipart body could not be read.', [{ name: 'body', reason: 'is not multipart/form-data' }]);
  }
  const items: RequestItem[] = [];
  for (const [, value] of form) {
    if (typeof value === 'string') continue; // a plain field: nothing to import
    if (items.length >= limits.maxItems) tooMany(limits);
    const bytes = Buffer.from(await value.arrayBuffer());
    // As PostgreSQL and JSON can hold it, and bounded: the name is stored with the artifact and its report.
    const name = clean(value.name).slice(0, 255) || `file ${items.length + 1}`;
    if (bytes.length > limits.maxItemBytes) {
      items.push({ key: `invalid:${name}`, item: invalid('too-large', `${name} is over ${limits.maxItemBytes} bytes.`) });
      continue;
    }
    items.push({
      key: `sha256:${sha256(bytes)}`,
      item: { kind: 'file', name, ...(value.type ? { content_type: value.type } : {}), data: bytes.toString('base64') },
    });
  }
  if (items.length === 0) throw problems.validation('The multipart body holds no file.', [{ name: 'body', reason: 'has no file part' }]);
  return items;
}

/**
 * What the request asked, for a reused Idempotency-Key's check: its items' keys in order (a retried
 * multipart request has another boundary, but the same files).
 */
export const importRequestHash = (workspaceId: string, items: RequestItem[]) =>
  sha256([workspaceId, ...items.map((i) => i.key)].join('\u0000'));
