// What the docs tests read in Markdown and in source text: fenced blocks, links, heading anchors (as
// GitHub makes them), and the SPEC sections and issues a text cites.

export interface Fence {
  /** The info string after the opening fence (`sh`, `sh static`, `text`, `json`). */
  info: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** Lines of the file between this fence's end and the next fence's start. */
  after: string;
}

export function fences(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const found: (Omit<Fence, 'after'> & { start: number; end: number })[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const close = lines.findIndex((l, j) => j > i && l.trim() === open[1]);
    const end = close === -1 ? lines.length : close;
    found.push({ info: (open[2] ?? '').trim(), code: lines.slice(i + 1, end).join('\n'), line: i + 1, start: i, end });
    i = end;
  }
  return found.map((f, k) => ({
    info: f.info,
    code: f.code,
    line: f.line,
    after: lines.slice(f.end + 1, found[k + 1]?.start ?? lines.length).join('\n'),
  }));
}

export interface ShellStep {
  code: string;
  line: number;
  /** What the block prints, from the ```text block right after it (only blank lines between); `…` is a wildcard. */
  expected?: string;
}

/** The README's runnable blocks: fenced ```sh (not ```sh static, which is checked otherwise). */
export function shellSteps(markdown: string): ShellStep[] {
  const all = fences(markdown);
  return all.flatMap((f, k) => {
    if (f.info !== 'sh') return [];
    const next = all[k + 1];
    const expected = next && next.info === 'text' && f.after.trim() === '' ? next.code : undefined;
    return [{ code: f.code, line: f.line, expected }];
  });
}

/** Whether `actual` (a block's output) is what `expected` says: line by line, `…` matching any text. */
export function matchesExpected(expected: string, actual: string): boolean {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = expected
    .trim()
    .split('\n')
    .map((line) => line.trimEnd().split('…').map(escape).join('.*'))
    .join('\n');
  return new RegExp(`^${pattern}$`).test(
    actual
      .trim()
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n'),
  );
}

/** Markdown with fenced blocks and inline code removed (links and headings in code are not links). */
function prose(markdown: string): string {
  const lines = markdown.split('\n');
  const kept: string[] = [];
  let fence: string | null = null;
  for (const line of lines) {
    const mark = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (line.trim() === fence) fence = null;
      kept.push('');
    } else if (mark) {
      fence = mark;
      kept.push('');
    } else kept.push(line.replace(/`[^`]*`/g, '``'));
  }
  return kept.join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a file offers: its headings' (outside code) and explicit `<a id>`s. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const lines = markdown.split('\n');
  let fence: string | null = null;
  for (const line of lines) {
    const mark = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (line.trim() === fence) fence = null;
      continue;
    }
    if (mark) {
      fence = mark;
      continue;
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1] ?? '');
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) if (m[1]) out.add(m[1]);
  }
  return out;
}

export interface Link {
  target: string;
  line: number;
}

/** Relative links and images (`[text](path#anchor)`, `![alt](path)`) outside code. */
export function relativeLinks(markdown: string): Link[] {
  return prose(markdown)
    .split('\n')
    .flatMap((text, i) =>
      [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
        .map((m) => m[1] ?? '')
        .filter((t) => t !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(t))
        .map((target) => ({ target, line: i + 1 })),
    );
}

/** Names of standards whose sections a comment may cite beside the SPEC's: a `§` right after one is theirs. */
const otherStandard = /^(RFC\s?\d+|OAuth 2\.1|OIDC Core|OpenID Connect Core|Discovery(?: 1\.0)?|SEP-\d+)$/;

/**
 * The SPEC sections a text cites: `SPEC §4.6`, and a bare `§4.6` unless it belongs to another
 * standard named just before it (`RFC 6749 §5.2 and §4.1.2.1`, `OIDC Core §3.1.2.6`).
 */
export function specCitations(text: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    let owner = 'SPEC';
    let last = 0;
    const tokens = /(RFC\s?\d+|OAuth 2\.1|OIDC Core|OpenID Connect Core|Discovery(?: 1\.0)?|SEP-\d+|SPEC)|§\s?(\d+(?:\.\d+)*)/g;
    for (const m of line.matchAll(tokens)) {
      const between = line.slice(last, m.index);
      last = m.index + m[0].length;
      if (m[1]) {
        owner = m[1];
        continue;
      }
      // Only separators since the standard's name or its previous section: still that standard's.
      if (!/^[\s,;]*(?:(?:and|or)\s+)?$/.test(between)) owner = 'SPEC';
      if (!otherStandard.test(owner) && m[2]) out.add(m[2]);
    }
  }
  return out;
}

/** The issues a text cites: `issue #23`, `issues #21 and #22`, `Issue #30's`. */
export function issueCitations(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\bissues?\s+((?:#\d+(?:\s*,\s*|\s+and\s+|\s*\/\s*)?)+)/gi)) {
    for (const n of (m[1] ?? '').matchAll(/#(\d+)/g)) if (n[1]) out.add(n[1]);
  }
  return out;
}
