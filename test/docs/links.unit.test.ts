// Every relative link in README.md and docs/*.md leads somewhere: the file exists, and the anchor, when
// the link names one in a Markdown file, is a heading (or an <a id>) of that file.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { anchors, relativeLinks, slug } from './markdown.js';

const root = resolve(import.meta.dirname, '../..');
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The links of `file` that lead nowhere, as `file:line → target (why)`. */
export function brokenLinks(file: string, text: string, read: (path: string) => string | null): string[] {
  const broken: string[] = [];
  for (const { target, line } of relativeLinks(text)) {
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const absolute = path === '' ? resolve(root, file) : resolve(root, dirname(file), decodeURI(path));
    const where = `${file}:${line} → ${target}`;
    const content = path === '' ? text : read(absolute);
    if (content === null) {
      broken.push(`${where} (no such file)`);
      continue;
    }
    if (anchor !== undefined && absolute.endsWith('.md') && !anchors(content).has(decodeURIComponent(anchor))) {
      broken.push(`${where} (no anchor #${anchor} in ${relative(root, absolute)})`);
    }
  }
  return broken;
}

/** A file's text; a folder reads as empty (a link to a folder leads somewhere, and has no anchors). */
const readReal = (path: string) => (!existsSync(path) ? null : statSync(path).isDirectory() ? '' : readFileSync(path, 'utf8'));

describe('links in the docs', () => {
  it('README.md and every docs/*.md page are checked', () => {
    assert.ok(docs.includes('docs/api.md') && docs.includes('docs/spec-notes.md'), docs.join(', '));
  });

  it('every relative link points to an existing file and anchor', () => {
    const broken = docs.flatMap((file) => brokenLinks(file, readFileSync(join(root, file), 'utf8'), readReal));
    assert.deepEqual(broken, []);
  });

  it('catches a missing file, a missing anchor and a link within the page', () => {
    const page =
      '# Top\n\n## A section: with `code`\n\n[ok](#a-section-with-code) [self](#nowhere) [gone](missing.md) [bad](api.md#no-such)\n';
    const fake = (path: string) => (path.endsWith('docs/api.md') ? '# API\n## Endpoints\n' : null);
    assert.deepEqual(
      brokenLinks('docs/page.md', page, fake).map((b) => b.replace(/^docs\/page\.md:\d+ → /, '')),
      ['#nowhere (no anchor #nowhere in docs/page.md)', 'missing.md (no such file)', 'api.md#no-such (no anchor #no-such in docs/api.md)'],
    );
  });

  it('makes anchors as GitHub does', () => {
    assert.equal(slug('Production: a real MongoDB / Atlas and a real Temporal'), 'production-a-real-mongodb--atlas-and-a-real-temporal');
    assert.equal(slug('At scale: 100,000 artifacts'), 'at-scale-100000-artifacts');
    assert.equal(slug('stdio MCP servers: a catalog and a sandbox'), 'stdio-mcp-servers-a-catalog-and-a-sandbox');
    assert.deepEqual([...anchors('# A\n## A\n```sh\n# not a heading\n```\n<a id="spec-4.6"></a>\n')], ['a', 'a-1', 'spec-4.6']);
  });
});
