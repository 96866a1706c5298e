import { dirname } from 'node:path';

/**
 * The macOS sandbox (issue #34): `sandbox-exec -p <profile>`, Seatbelt's profile language. Allowed by
 * default, then narrowed, since a deny-by-default profile breaks the dynamic loader and Node itself;
 * in SBPL the LAST matching rule wins, so each allow below re-opens a part of what a deny above closed.
 * Not run in this repository's CI (Linux): the profile text is unit-tested, the behaviour is not.
 */
export interface MacProfileOptions {
  home: string;
  /** The server's own temporary folder (its HOME and TMPDIR). */
  tempDir: string;
  folders: { path: string; write: boolean }[];
  /** Extra read-only folders (a repository's clone, the relay's working folder). */
  readable: string[];
  network: boolean;
}

/** An SBPL string literal. */
export const sbplString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let p = dirname(path); p !== dirname(p); p = dirname(p)) out.push(p);
  return out;
}

export function macosProfile(o: MacProfileOptions): string {
  const reads = [...o.folders.map((f) => f.path), ...o.readable, o.tempDir];
  const writes = [...o.folders.filter((f) => f.write).map((f) => f.path), o.tempDir];
  const lines = ['(version 1)', '(allow default)'];
  if (!o.network) lines.push('(deny network*)');
  lines.push(
    '(deny file-write*)',
    `(allow file-write* ${writes.map((p) => `(subpath ${sbplString(p)})`).join(' ')} (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))`,
    `(deny file-read* (subpath ${sbplString(o.home)}))`,
    `(allow file-read* ${reads.map((p) => `(subpath ${sbplString(p)})`).join(' ')})`,
  );
  // Looking up a path stats each folder above it: the names of those folders, not their contents.
  const above = [...new Set(reads.flatMap(ancestors))].filter((p) => p === o.home || p.startsWith(`${o.home}/`));
  if (above.length) lines.push(`(allow file-read-metadata ${above.map((p) => `(literal ${sbplString(p)})`).join(' ')})`);
  return `${lines.join('\n')}\n`;
}
