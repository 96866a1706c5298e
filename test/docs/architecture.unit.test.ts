// docs/architecture.md is the newcomer's map: every source path it names exists, every name it gives a
// path (`workflow-clients/commit.ts` `CommitWorkflows.decide`) is declared in that file, and every
// folder of src/ is on the layer diagram. A rename that forgets the map fails here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');
const map = readFileSync(join(root, 'docs/architecture.md'), 'utf8');

/** A source path as the map writes it (relative to src/, or a repository path), if it is one. */
function sourcePath(token: string): string | null {
  const path = token.replace(/[.,;:)]+$/, '');
  if (!/^[a-z][\w-]*(\/[\w.-]+)*\/?$/.test(path) || !path.includes('/')) return null;
  if (/^(src|test|docs|web|temporal-dev|scripts|bench|clients)\//.test(path)) return path;
  if (path.startsWith('contracts/')) return `src/workflows/${path}`;
  return `src/${path}`;
}

/** Every backticked path in the map, with the backticked name written right after it (`path` `Name`). */
function mentions(): { path: string; names: string[]; line: number }[] {
  const found: { path: string; names: string[]; line: number }[] = [];
  map.split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/`([^`]+)`(?:\s+`([A-Za-z_]\w*(?:\.\w+)?)`)?/g)) {
      const path = sourcePath(m[1]!);
      if (path) found.push({ path, names: m[2] && !sourcePath(m[2]) ? [m[2]] : [], line: i + 1 });
    }
  });
  return found;
}

const exists = (path: string) => [path, `${path}.ts`, path.replace(/\/$/, '')].some((p) => existsSync(join(root, p)));

describe('docs/architecture.md', () => {
  it('names only source paths that exist', () => {
    const missing = mentions()
      .filter((m) => !exists(m.path))
      .map((m) => `line ${m.line}: ${m.path}`);
    assert.deepEqual(missing, [], `paths the map names that do not exist:\n${missing.join('\n')}`);
  });

  it('gives each file only names that file declares', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const { path, names, line } of mentions()) {
      if (!path.endsWith('.ts') || !exists(path)) continue;
      const text = readFileSync(join(root, path), 'utf8');
      for (const name of names) {
        const [owner, member] = name.split('.') as [string, string | undefined];
        // Declared there: a top-level declaration, or a member written at the start of a line (a
        // method, a property of an object or class); a call or an import does not count.
        const memberLine = (name: string) => new RegExp(`^\\s*(?:(?:public|private|readonly|static|async|get)\\s+)*${name}\\s*[(=:<]`, 'm');
        const declared =
          new RegExp(`\\b(function|class|const|interface|type|let|enum)\\s+${owner}\\b`).test(text) || memberLine(owner).test(text);
        const hasMember = !member || memberLine(member).test(text);
        if (!declared || !hasMember) wrong.push(`line ${line}: ${name} is not in ${path}`);
        checked++;
      }
    }
    assert.deepEqual(wrong, [], wrong.join('\n'));
    assert.ok(checked >= 15, `only ${checked} names checked: the map's \`path\` \`Name\` pairs are no longer found`);
  });

  it('puts every folder of src/ on the layer diagram', () => {
    const diagram = map.slice(map.indexOf('```'), map.indexOf('```', map.indexOf('```') + 3));
    const folders = readdirSync(src).filter((f) => statSync(join(src, f)).isDirectory());
    const absent = folders.filter((f) => !new RegExp(`(^|[\\s/])${f}/`).test(diagram));
    assert.deepEqual(absent, [], `folders missing from the diagram: ${absent.join(', ')}`);
  });
});
