// A "SPEC §4.6" or an "issue #23" in the repository is never the only explanation: docs/spec-notes.md
// has a note (an anchor `spec-4.6`) for every SPEC section cited in src/, test/, docs/ and the README,
// and docs/issues.md one (`issue-23`) for every issue cited there.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { anchors, issueCitations, specCitations } from './markdown.js';

const root = resolve(import.meta.dirname, '../..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'fixtures' ? [] : filesUnder(path);
    return /\.(ts|tsx|mjs|cjs|js|md|sh|json|yaml)$/.test(e.name) ? [path] : [];
  });
}

const sources = [
  ...['src', 'test', 'docs', 'scripts', 'bench', 'temporal-dev', 'web', 'examples', 'config'].flatMap((d) => filesUnder(join(root, d))),
  join(root, 'README.md'),
  join(root, '.env.example'),
].filter((f) => !f.endsWith('docs/spec-notes.md') && !f.endsWith('docs/issues.md'));

/** Each citation with the files that make it. */
function cited(extract: (text: string) => Set<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of sources) {
    for (const ref of extract(readFileSync(file, 'utf8'))) out.set(ref, [...(out.get(ref) ?? []), relative(root, file)]);
  }
  return out;
}

const missing = (refs: Map<string, string[]>, have: Set<string>, anchor: (ref: string) => string) =>
  [...refs].filter(([ref]) => !have.has(anchor(ref))).map(([ref, files]) => `${ref} (cited in ${files.slice(0, 3).join(', ')})`);

describe('references a reader can follow', () => {
  it('every SPEC section cited has a note in docs/spec-notes.md', () => {
    const refs = cited(specCitations);
    assert.ok(refs.has('4.6') && refs.has('5.7'), 'the citations are found');
    assert.deepEqual(
      missing(refs, anchors(readFileSync(join(root, 'docs/spec-notes.md'), 'utf8')), (r) => `spec-${r}`),
      [],
    );
  });

  it('every issue cited has an entry in docs/issues.md', () => {
    const refs = cited(issueCitations);
    assert.ok(refs.has('21') && refs.has('23'), 'the citations are found');
    assert.deepEqual(
      missing(refs, anchors(readFileSync(join(root, 'docs/issues.md'), 'utf8')), (r) => `issue-${r}`),
      [],
    );
  });

  it("tells the SPEC's sections from other standards' and finds every issue form", () => {
    assert.deepEqual(
      [...specCitations('SPEC §4.6, §5.7; RFC 6749 §5.2 and §4.1.2.1, OIDC Core §3.1.2.6, then per §2.3 (RFC 8252 §7.3)')],
      ['4.6', '5.7', '2.3'],
    );
    assert.deepEqual([...specCitations("rfc: 'RFC 1122 §3.2.1.3'")], []);
    assert.deepEqual([...specCitations('OAuth 2.1 §4.1.1 asks it; the server (§2.9) too')], ['2.9']);
    assert.deepEqual([...issueCitations("issue #23's table; issues #21 and #22, Issue #30")], ['23', '21', '22', '30']);
  });

  it('fails on a citation without a note', () => {
    const notes = anchors('<a id="spec-4.6"></a>\n### 4.6 Tools\n');
    const refs = new Map([
      ['4.6', ['a.ts']],
      ['9.9', ['b.ts']],
    ]);
    assert.deepEqual(
      missing(refs, notes, (r) => `spec-${r}`),
      ['9.9 (cited in b.ts)'],
    );
  });
});
