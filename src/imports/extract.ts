// One uploaded file to one artifact's fields, for bulk import (issue #33). Pure but for the PDF thread
// (./pdf-text.ts): no store, no network. The type comes from the declared content type, else the
// file name's extension, else the bytes (%PDF-); a file that starts with %PDF- is read as a PDF
// whatever it was declared as (context.file.declared_type keeps the claim). Text must be UTF-8 without
// NUL bytes. HTML becomes Markdown (the platform never renders HTML). A PDF keeps its bytes (base64,
// as the console's viewer reads them) and gives its pages' text to search.
import { createHash } from 'node:crypto';
import { clean } from './clean-text.js';
import { defaultReadLimits, htmlText, pdfText, ReadError } from './pool-text.js';

export interface ImportFile {
  name: string;
  contentType?: string;
  bytes: Buffer;
}

export interface ExtractedItem {
  /** ≤ 500 characters, trimmed, never empty. */
  title: string;
  content_type: string;
  /** What the artifact stores. */
  content: string;
  /** What search indexes instead of content, when content is not the text (PDF: always set, maybe ''). */
  search_text?: string;
  context: Record<string, unknown>;
}

export type ImportItemReason = 'unsupported-type' | 'too-large' | 'invalid-text' | 'invalid-json' | 'unreadable-pdf' | 'empty';

export class ImportItemError extends Error {
  constructor(
    readonly reason: ImportItemReason,
    message: string,
  ) {
    super(message);
    this.name = 'ImportItemError';
  }
}

export interface ExtractLimits {
  maxBytes: number;
  /** How long reading one PDF or converting one HTML page may take, once started (default 30 s);
   * the other text types take linear time and are not timed. */
  deadlineMs?: number;
}

type Kind = 'markdown' | 'plain' | 'html' | 'json' | 'pdf';

/** The declared types taken, each with the kind it is read as. */
const declaredKinds: Record<string, Kind> = {
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'application/x-markdown': 'markdown',
  'text/plain': 'plain',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/json': 'json',
  'text/json': 'json',
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
};

const extensionKinds: Record<string, Kind> = {
  md: 'markdown',
  markdown: 'markdown',
  txt: 'plain',
  text: 'plain',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  json: 'json',
  pdf: 'pdf',
};

/** For docs and error messages: the content types an import takes (HTML is stored as Markdown). */
export const importableTypes: readonly string[] = ['text/markdown', 'text/plain', 'text/html', 'application/json', 'application/pdf'];

const accepted = `${importableTypes.join(', ')} (or a .md, .markdown, .txt, .html, .htm, .json or .pdf file)`;

export const maxTitleLength = 500;

const isPdf = (bytes: Buffer) => bytes.subarray(0, 5).toString('latin1') === '%PDF-';

/** `text/markdown; charset=utf-8` → `text/markdown`; '' for none or application/octet-stream (it says nothing). */
function declared(type: string | undefined): string {
  const base = (type ?? '').split(';')[0]!.trim().toLowerCase();
  return base === 'application/octet-stream' ? '' : base;
}

/** The file name's last part, whatever the separator: `docs\a\b.md` → `b.md`. */
const baseName = (name: string) => name.split(/[\\/]/).pop() ?? '';

function extensionOf(name: string): string {
  const base = baseName(name);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

function kindOf(file: ImportFile, type: string): { kind: Kind; by: 'content-type' | 'extension' | 'bytes' } {
  if (type) {
    const kind = declaredKinds[type] ?? (type.endsWith('+json') ? 'json' : undefined);
    // text/plain is what many clients call any text file: a .md file so labelled is still Markdown.
    if (kind === 'plain' && extensionKinds[extensionOf(file.name)] === 'markdown') return { kind: 'markdown', by: 'extension' };
    if (kind) return { kind, by: 'content-type' };
    throw new ImportItemError('unsupported-type', `${type} is not importable; accepted: ${accepted}`);
  }
  const ext = extensionOf(file.name);
  const byExt = extensionKinds[ext];
  if (byExt) return { kind: byExt, by: 'extension' };
  if (isPdf(file.bytes)) return { kind: 'pdf', by: 'bytes' };
  const what = ext ? `a .${ext} file` : 'a file without a type or extension';
  throw new ImportItemError('unsupported-type', `${what} is not importable; accepted: ${accepted}`);
}

/** Trimmed, one line, at most 500 UTF-16 units (a cut never splits a surrogate pair); '' if nothing is left. */
export function titleFrom(text: string | null | undefined): string {
  const line = clean(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  if (line.length <= maxTitleLength) return line;
  const cut = line.slice(0, maxTitleLength);
  return (/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut).trim();
}

/** The file name without its extension, as a title. */
function nameTitle(name: string): string {
  const base = baseName(name);
  const dot = base.lastIndexOf('.');
  return titleFrom(dot > 0 ? base.slice(0, dot) : base);
}

/** A text's first non-blank line (looked for in its first few KB only). */
const firstLine = (text: string) => text.slice(0, 4096).trimStart().split('\n')[0];

const firstTitle = (...candidates: (string | null | undefined)[]) => candidates.map(titleFrom).find((t) => t.length > 0) ?? 'Untitled';

/** Strict UTF-8 without NUL bytes; the BOM goes. */
function utf8(bytes: Buffer): string {
  if (bytes.includes(0)) throw new ImportItemError('invalid-text', 'the file holds NUL bytes: it is not text');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ImportItemError('invalid-text', 'the file is not valid UTF-8 text');
  }
}

function nonEmpty(text: string): string {
  if (text.trim().length === 0) throw new ImportItemError('empty', 'the file has no text');
  return text;
}

/** An ATX heading's text without its closing sequence (`## x ##` → `x`), by hand: a regular
 * expression for it backtracks quadratically on a long run of spaces. */
function closeless(raw: string): string {
  const text = raw.trimEnd();
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end--;
  // Hashes close the heading only after a space or tab, or when they are all there is.
  const closed = end === 0 || text[end - 1] === ' ' || text[end - 1] === '\t';
  return (closed ? text.slice(0, end) : text).trim();
}

/** A YAML front matter `title:` line, else the first ATX heading outside fenced code. */
export function markdownTitle(text: string): string | null {
  // Front matter is short: only the start is searched (and no regular expression sees a whole file).
  const front = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text.slice(0, 64 * 1024));
  const fromFront = front && /^title:[ \t]*(.+)$/m.exec(front[1]!);
  if (fromFront) {
    const value = fromFront[1]!.trim().replace(/^(["'])(.*)\1$/, '$2');
    if (value) return value;
  }
  let fence: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const heading = /^ {0,3}#{1,6}(?:[ \t]+(.*))?$/.exec(line.length > 2000 ? line.slice(0, 2000) : line);
    const textOf = heading && closeless(heading[1] ?? '');
    if (textOf) return textOf;
  }
  return null;
}

export async function extractFile(file: ImportFile, limits: ExtractLimits): Promise<ExtractedItem> {
  if (file.bytes.length > limits.maxBytes) {
    throw new ImportItemError('too-large', `the file has ${file.bytes.length} bytes; at most ${limits.maxBytes} are taken`);
  }
  const type = declared(file.contentType);
  let { kind, by } = kindOf(file, type);
  const info: Record<string, unknown> = {
    name: file.name,
    bytes: file.bytes.length,
    sha256: createHash('sha256').update(file.bytes).digest('hex'),
  };
  if (type) info.declared_type = type;
  if (kind !== 'pdf' && isPdf(file.bytes)) {
    // The bytes are a PDF's, whatever the label said: read as what it is, and say so.
    kind = 'pdf';
    by = 'bytes';
  }
  info.type_from = by;
  const context: Record<string, unknown> = { file: info };

  switch (kind) {
    case 'markdown': {
      const content = nonEmpty(utf8(file.bytes));
      return {
        title: firstTitle(markdownTitle(content), nameTitle(file.name), firstLine(content)),
        content_type: 'text/markdown',
        content,
        context,
      };
    }
    case 'plain': {
      const content = nonEmpty(utf8(file.bytes));
      return { title: firstTitle(nameTitle(file.name), firstLine(content)), content_type: 'text/plain', content, context };
    }
    case 'json': {
      const content = nonEmpty(utf8(file.bytes));
      let value: unknown;
      try {
        value = JSON.parse(content);
      } catch (err) {
        throw new ImportItemError('invalid-json', `the file is not valid JSON (${(err as Error).message})`);
      }
      const named =
        value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { title?: unknown }).title === 'string'
          ? (value as { title: string }).title
          : null;
      return { title: firstTitle(named, nameTitle(file.name)), content_type: 'application/json', content, context };
    }
    case 'html': {
      const html = utf8(file.bytes);
      let converted;
      try {
        converted = await htmlText(html, { deadlineMs: limits.deadlineMs ?? defaultReadLimits.deadlineMs });
      } catch (err) {
        // Not among the reasons the API names for HTML alone: text that cannot be read as a page.
        if (err instanceof ReadError) throw new ImportItemError('invalid-text', `the HTML could not be converted: ${err.message}`);
        throw err;
      }
      const { markdown, title } = converted;
      if (!markdown.trim()) throw new ImportItemError('empty', 'the page has no text once scripts, styles and markup are dropped');
      context.converted_from = 'text/html';
      return { title: firstTitle(title, nameTitle(file.name)), content_type: 'text/markdown', content: markdown, context };
    }
    case 'pdf':
      return extractPdf(file, limits, context);
  }
}

async function extractPdf(file: ImportFile, limits: ExtractLimits, context: Record<string, unknown>): Promise<ExtractedItem> {
  if (!isPdf(file.bytes) && !file.bytes.subarray(0, 1024).includes('%PDF-')) {
    throw new ImportItemError('unreadable-pdf', 'the file is not a PDF: it has no %PDF- header');
  }
  let text;
  try {
    text = await pdfText(file.bytes, { deadlineMs: limits.deadlineMs ?? defaultReadLimits.deadlineMs });
  } catch (err) {
    if (err instanceof ReadError) throw new ImportItemError('unreadable-pdf', `the PDF could not be read: ${err.message}`);
    throw err;
  }
  const searchText = text.pages.join('\n\n');
  context.pages = text.pages.length;
  // One value per page: at most maxPages (5,000), inside a stored object's 10,000 values.
  context.page_text_chars = text.pages.map((p) => p.length);
  if (text.encrypted) context.encrypted = true;
  // A scanned PDF has no text: it is kept all the same (viewable, found by its title), and says so.
  if (searchText.trim().length === 0) context.text = 'none';
  else if (text.truncated) context.text = 'truncated';
  return {
    title: firstTitle(text.title, nameTitle(file.name)),
    content_type: 'application/pdf',
    content: file.bytes.toString('base64'),
    search_text: searchText,
    context,
  };
}
