// Markdown to Preact elements, never to HTML: every piece of the source ends up as a text node or as
// one of a fixed set of elements (headings, paragraphs, emphasis, code, lists, block quotes, rules,
// links). Raw HTML is text. A link keeps its href only when it is an absolute http, https or mailto
// URL; it opens in a new tab without a referrer. Headings move one level down (the artifact's title
// is the page's h1). Nesting is capped, and a failed search for a closing delimiter is remembered,
// so hostile input costs linear time, not quadratic.
import { Fragment, h, type ComponentChildren, type VNode } from 'preact';

const maxDepth = 16;

type Props = Record<string, string | number | undefined>;
/** An element from a fixed tag and props; children are text or other such elements. */
const el = (tag: string, props: Props | null, ...children: ComponentChildren[]): VNode => h(tag, props, ...children) as VNode;

/** Longer sources are shown as text: the renderer is for documents, not for megabytes. */
export const maxMarkdownLength = 500_000;

const safeSchemes = new Set(['http:', 'https:', 'mailto:']);

/** The URL as the browser would follow it, if it is absolute and http, https or mailto; otherwise null. */
export function safeHref(raw: string): string | null {
  const trimmed = raw.trim();
  if (/[\u0000-\u0020\u007f]/.test(trimmed)) return null;
  try {
    const url = new URL(trimmed);
    return safeSchemes.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/** A link if the href is safe, otherwise its text in a span that says the link was dropped. */
function link(href: string, title: string | undefined, children: ComponentChildren, key: number): VNode {
  const safe = safeHref(href);
  if (!safe)
    return el('span', { key, class: 'md-unsafe-link', title: 'Link not followed: only http, https and mailto links are' }, children);
  return el('a', { key, href: safe, title, rel: 'noopener noreferrer', target: '_blank' }, children);
}

// ---------------------------------------------------------------- blocks

const fenceOpen = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;
const atxHeading = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const rule = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const quote = /^ {0,3}> ?/;
const listItem = /^( {0,3})([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*))?$/;
const indentedCode = /^(?: {4}|\t)/;
const setext = /^ {0,3}(=+|-+)[ \t]*$/;
const blank = (line: string) => line.trim() === '';

const startsBlock = (line: string) =>
  fenceOpen.test(line) || atxHeading.test(line) || rule.test(line) || quote.test(line) || listItem.test(line);

export function renderMarkdown(source: string): VNode[] {
  return blocks(source.replace(/\r\n?/g, '\n').split('\n'), 0, false);
}

function heading(level: number, text: string, key: number): VNode {
  return el(`h${Math.min(level + 1, 6)}`, { key }, inline(text));
}

function blocks(lines: string[], depth: number, tight: boolean): VNode[] {
  const out: VNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const key = i;
    if (blank(line)) {
      i++;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = fenceOpen.exec(line))) {
      const fence = m[1]!;
      const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
      const body: string[] = [];
      for (i++; i < lines.length && !close.test(lines[i]!); i++) body.push(lines[i]!);
      i++;
      out.push(el('pre', { key, class: 'md-code' }, el('code', m[2] ? { 'data-lang': m[2] } : {}, body.join('\n'))));
    } else if ((m = atxHeading.exec(line))) {
      out.push(heading(m[1]!.length, m[2] ?? '', key));
      i++;
    } else if (rule.test(line)) {
      out.push(el('hr', { key }));
      i++;
    } else if (quote.test(line) && depth < maxDepth) {
      const inner: string[] = [];
      for (; i < lines.length && (quote.test(lines[i]!) || (!blank(lines[i]!) && !startsBlock(lines[i]!))); i++)
        inner.push(lines[i]!.replace(quote, ''));
      out.push(el('blockquote', { key }, blocks(inner, depth + 1, false)));
    } else if (listItem.test(line) && depth < maxDepth) {
      i = list(lines, i, depth, out);
    } else if (indentedCode.test(line)) {
      const body: string[] = [];
      for (; i < lines.length && (indentedCode.test(lines[i]!) || blank(lines[i]!)); i++) body.push(lines[i]!.replace(indentedCode, ''));
      while (body.length > 0 && blank(body[body.length - 1]!)) body.pop();
      out.push(el('pre', { key, class: 'md-code' }, el('code', {}, body.join('\n'))));
    } else {
      const text: string[] = [line.trimStart()];
      let level = 0;
      for (i++; i < lines.length && !blank(lines[i]!) && !startsBlock(lines[i]!); i++) {
        const under = setext.exec(lines[i]!);
        if (under) {
          level = under[1]![0] === '=' ? 1 : 2;
          i++;
          break;
        }
        text.push(lines[i]!.trimStart());
      }
      // A "---" right under text is a heading, not a rule.
      if (!level && i < lines.length && /^ {0,3}-+[ \t]*$/.test(lines[i]!)) {
        level = 2;
        i++;
      }
      const joined = text.join('\n').trimEnd();
      if (level) out.push(heading(level, joined, key));
      else out.push(tight ? h(Fragment, { key }, inline(joined)) : el('p', { key }, inline(joined)));
    }
  }
  return out;
}

/** One list (bulleted or numbered) from line `start`; pushes it to `out` and returns the line after it. */
function list(lines: string[], start: number, depth: number, out: VNode[]): number {
  const first = listItem.exec(lines[start]!)!;
  const ordered = /\d/.test(first[2]!);
  const kind = ordered ? first[2]!.slice(-1) : first[2]!;
  const items: string[][] = [];
  let loose = false;
  let i = start;
  let indent = 0;
  let sawBlank = false;
  while (i < lines.length) {
    const line = lines[i]!;
    const m = listItem.exec(line);
    const sameKind = m && (ordered ? /\d/.test(m[2]!) && m[2]!.slice(-1) === kind : m[2] === kind);
    if (m && sameKind && (items.length === 0 || m[1]!.length < indent) && !rule.test(line)) {
      if (sawBlank && items.length > 0) loose = true;
      const spaces = m[3] ? (m[3].length > 4 ? 1 : m[3].length) : 1;
      indent = m[1]!.length + m[2]!.length + spaces;
      items.push([m[3] && m[3].length > 4 ? ' '.repeat(m[3].length - 1) + (m[4] ?? '') : (m[4] ?? '')]);
      sawBlank = false;
    } else if (blank(line)) {
      items[items.length - 1]!.push('');
      sawBlank = true;
    } else if (/^ */.exec(line)![0].length >= indent) {
      if (sawBlank) loose = true;
      items[items.length - 1]!.push(line.slice(indent));
      sawBlank = false;
    } else if (!sawBlank && !startsBlock(line)) {
      items[items.length - 1]!.push(line.trim()); // a paragraph's lazy continuation
    } else break;
    i++;
  }
  const startAt = ordered ? Number.parseInt(first[2]!, 10) : 1;
  const children = items.map((body, n) => el('li', { key: n }, blocks(body, depth + 1, !loose)));
  out.push(ordered ? el('ol', { key: start, start: startAt === 1 ? undefined : startAt }, children) : el('ul', { key: start }, children));
  return i;
}

// ---------------------------------------------------------------- inline

const punctuation = /[!-/:-@[-`{-~]/;

/** Inline markdown of one paragraph or heading: text, code spans, emphasis, links, line breaks. */
export function inline(text: string): ComponentChildren[] {
  return new Inline(text).run(0, text.length, 0);
}

class Inline {
  /** Delimiters with no closer after some position: none after any later position either. */
  private readonly noCloser = new Map<string, number>();
  private key = 0;

  constructor(private readonly src: string) {}

  run(from: number, to: number, depth: number): ComponentChildren[] {
    const s = this.src;
    const out: ComponentChildren[] = [];
    let buffer = '';
    const flush = () => {
      if (buffer) out.push(buffer);
      buffer = '';
    };
    const push = (node: VNode) => {
      flush();
      out.push(node);
    };
    let i = from;
    while (i < to) {
      const c = s[i]!;
      if (c === '\\' && i + 1 < to && punctuation.test(s[i + 1]!)) {
        buffer += s[i + 1];
        i += 2;
      } else if (c === '\\' && s[i + 1] === '\n') {
        push(el('br', { key: this.key++ }));
        i += 2;
      } else if (c === '\n') {
        if (/ {2,}$/.test(buffer)) {
          buffer = buffer.replace(/ +$/, '');
          push(el('br', { key: this.key++ }));
        } else buffer += '\n';
        i++;
      } else if (c === '`') {
        const run = /^`+/.exec(s.slice(i, Math.min(to, i + 64)))![0];
        const close = this.find(run, i + run.length, to, (j) => s[j + run.length] !== '`' && s[j - 1] !== '`');
        if (close < 0) {
          buffer += run;
          i += run.length;
        } else {
          let code = s.slice(i + run.length, close).replace(/\n/g, ' ');
          if (/^ .*[^ ].* $/.test(code)) code = code.slice(1, -1);
          push(el('code', { key: this.key++ }, code));
          i = close + run.length;
        }
      } else if ((c === '[' || (c === '!' && s[i + 1] === '[')) && depth < maxDepth) {
        const image = c === '!';
        const parsed = this.linkAt(image ? i + 1 : i, to);
        if (!parsed) {
          buffer += image ? '![' : '[';
          i += image ? 2 : 1;
        } else {
          const label = this.run(parsed.textFrom, parsed.textTo, depth + 1);
          // An image becomes a link to it: the console loads no pictures from elsewhere.
          push(link(parsed.href, parsed.title, image ? (label.length ? label : parsed.href) : label, this.key++));
          i = parsed.end;
        }
      } else if (c === '<') {
        const auto = /^<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^\s<>]*)>/.exec(s.slice(i, Math.min(to, i + 2048)));
        const mail = auto ? null : /^<([^\s@<>()[\]\\,;:"]+@[a-zA-Z0-9.-]+)>/.exec(s.slice(i, Math.min(to, i + 512)));
        if (auto) push(link(auto[1]!, undefined, auto[1], this.key++));
        else if (mail) push(link(`mailto:${mail[1]}`, undefined, mail[1], this.key++));
        else buffer += '<';
        i += auto ? auto[0].length : mail ? mail[0].length : 1;
      } else if ((c === '*' || c === '_' || (c === '~' && s[i + 1] === '~')) && depth < maxDepth) {
        const end = this.emphasis(i, to, depth, push);
        if (end < 0) {
          const run = /^(\*+|_+|~+)/.exec(s.slice(i, Math.min(to, i + 64)))![0];
          buffer += run;
          i += run.length;
        } else i = end;
      } else {
        buffer += c;
        i++;
      }
    }
    flush();
    return out;
  }

  /** The first `token` at or after `from` (before `to`) that `ok` accepts, or -1; failures are remembered. */
  private find(token: string, from: number, to: number, ok: (j: number) => boolean): number {
    const known = this.noCloser.get(token);
    if (known !== undefined && known <= from) return -1;
    for (let j = this.src.indexOf(token, from); j >= 0 && j + token.length <= to; j = this.src.indexOf(token, j + 1)) {
      if (this.src[j - 1] !== '\\' && ok(j)) return j;
    }
    if (to === this.src.length) this.noCloser.set(token, Math.min(from, known ?? from));
    return -1;
  }

  /** `**strong**`, `*em*`, `__strong__`, `_em_`, `~~deleted~~` at `i`; the position after it, or -1. */
  private emphasis(i: number, to: number, depth: number, push: (node: VNode) => void): number {
    const s = this.src;
    const c = s[i]!;
    if (c === '_' && /[\p{L}\p{N}]/u.test(s[i - 1] ?? '')) return -1; // no intraword underscores
    const run = s[i + 1] === c ? (s[i + 2] === c ? 3 : 2) : 1;
    const sizes = c === '~' ? [2] : [3, 2, 1].filter((n) => n <= run);
    for (const size of sizes) {
      const token = c.repeat(size);
      const open = i + size;
      if (open >= to || /\s/.test(s[open]!)) continue;
      const close = this.find(token, open + 1, to, (j) => !/\s/.test(s[j - 1]!) && (c !== '_' || !/[\p{L}\p{N}]/u.test(s[j + size] ?? '')));
      if (close < 0) continue;
      const inner = this.run(open, close, depth + 1);
      const key = this.key++;
      if (c === '~') push(el('del', { key }, inner));
      else if (size === 3) push(el('strong', { key }, el('em', null, inner)));
      else push(el(size === 2 ? 'strong' : 'em', { key }, inner));
      return close + size;
    }
    return -1;
  }

  /** `[text](href "title")` with `[` at `i`: where its text is, the href, the title and where it ends. */
  private linkAt(i: number, to: number) {
    const s = this.src;
    let level = 0;
    let j = i;
    const limit = Math.min(to, i + 1000);
    for (; j < limit; j++) {
      if (s[j] === '\\') j++;
      else if (s[j] === '[') level++;
      else if (s[j] === ']' && --level === 0) break;
    }
    if (level !== 0 || s[j + 1] !== '(') return null;
    const rest = s.slice(j + 2, Math.min(to, j + 2 + 4096));
    const m =
      /^[ \t\n]*(?:<([^<>\n]*)>|((?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*))(?:[ \t\n]+(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'))?[ \t\n]*\)/.exec(
        rest,
      );
    if (!m) return null;
    const href = (m[1] ?? m[2] ?? '').replace(/\\([!-/:-@[-`{-~])/g, '$1');
    const title = (m[3] ?? m[4])?.replace(/\\([!-/:-@[-`{-~])/g, '$1');
    return { textFrom: i + 1, textTo: j, href, title, end: j + 2 + m[0].length };
  }
}
