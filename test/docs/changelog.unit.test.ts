// CHANGELOG.md is in Keep a Changelog form (SPEC §9): `## [Unreleased]` on top, then the releases
// newest first as `## [version] - YYYY-MM-DD`, the first being 1.0.0-mvp of 2026-04-01 (the release SPEC §9 dates);
// under each, only Keep a Changelog's kinds of change, each at most once, holding bullets. The newest
// release is the version package.json (and the typed client's, clients/typescript) carries.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../..');
const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
const kinds = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];
const release = /^## \[(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\] - (\d{4}-\d{2}-\d{2})$/;

interface Section {
  heading: string;
  line: number;
  kinds: { kind: string; line: number; bullets: number }[];
}

/** The `##` sections in order, each with its `###` subsections and their bullet counts. */
function sections(text: string): Section[] {
  const found: Section[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('## ')) found.push({ heading: line, line: i + 1, kinds: [] });
    else if (line.startsWith('### ')) found.at(-1)?.kinds.push({ kind: line.slice(4), line: i + 1, bullets: 0 });
    else if (line.startsWith('- ')) {
      const sub = found.at(-1)?.kinds.at(-1);
      if (sub) sub.bullets++;
    }
  });
  return found;
}

/** Semantic versioning precedence: numbers first, a pre-release below its release. */
function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = a.split(/-(.*)/s);
  const [coreB = '', preB] = b.split(/-(.*)/s);
  const numsA = coreA.split('.').map(Number);
  const numsB = coreB.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (numsA[i] !== numsB[i]) return numsA[i]! - numsB[i]!;
  if (preA === preB) return 0;
  if (preA === undefined) return 1;
  if (preB === undefined) return -1;
  return preA < preB ? -1 : 1;
}

describe('CHANGELOG.md', () => {
  const all = sections(changelog);
  const releases = all.slice(1).map((s) => release.exec(s.heading));

  it('opens with its title and [Unreleased], then the dated releases', () => {
    assert.match(changelog, /^# Changelog\n/);
    assert.equal(all[0]?.heading, '## [Unreleased]');
    assert.ok(all.length >= 2, 'at least one release');
    all.slice(1).forEach((s, i) => assert.ok(releases[i], `line ${s.line}: "${s.heading}" is not "## [version] - YYYY-MM-DD"`));
    assert.equal(all.filter((s) => s.heading === '## [Unreleased]').length, 1);
  });

  it('records 1.0.0-mvp dated 2026-04-01, as SPEC §9 dates the release', () => {
    assert.ok(all.some((s) => s.heading === '## [1.0.0-mvp] - 2026-04-01'));
  });

  it('lists the releases newest first, each version once, dates never later than the one above', () => {
    const listed = releases.map((m) => ({ version: m![1]!, date: m![2]! }));
    for (const { date } of listed) assert.ok(!Number.isNaN(Date.parse(`${date}T00:00:00Z`)), `${date} is a date`);
    for (let i = 1; i < listed.length; i++) {
      assert.ok(compareVersions(listed[i - 1]!.version, listed[i]!.version) > 0, `${listed[i - 1]!.version} above ${listed[i]!.version}`);
      assert.ok(listed[i - 1]!.date >= listed[i]!.date, `${listed[i - 1]!.version} is not dated before ${listed[i]!.version}`);
    }
    assert.equal(new Set(listed.map((r) => r.version)).size, listed.length);
  });

  it("uses only Keep a Changelog's kinds of change, each once a section, every release's holding bullets", () => {
    for (const section of all) {
      const seen = new Set<string>();
      for (const { kind, line, bullets } of section.kinds) {
        assert.ok(kinds.includes(kind), `line ${line}: "### ${kind}" is not one of ${kinds.join(', ')}`);
        assert.ok(!seen.has(kind), `line ${line}: a second "### ${kind}" under ${section.heading}`);
        seen.add(kind);
        if (section !== all[0]) assert.ok(bullets > 0, `line ${line}: "### ${kind}" of ${section.heading} has no bullet`);
      }
      if (section !== all[0]) assert.ok(section.kinds.length > 0, `${section.heading} records no change`);
    }
    const stray = changelog.split('\n').findIndex((l) => /^#{4,} |^#{1,2}[^#\s]/.test(l));
    assert.equal(stray, -1, `line ${stray + 1}: a heading Keep a Changelog does not use`);
  });

  it('keeps every line of a section a bullet, its continuation, or blank', () => {
    const body = changelog.split('\n').slice(changelog.split('\n').indexOf('## [Unreleased]'));
    const odd = body.filter((l) => l !== '' && !/^(#{2,3} |- | {2,}\S)/.test(l));
    assert.deepEqual(odd, [], 'lines that are neither headings, bullets nor their indented continuations');
  });

  it('has the version of package.json, and of the typed client package, as its newest release', () => {
    for (const manifest of ['package.json', 'clients/typescript/package.json']) {
      const pkg = JSON.parse(readFileSync(join(root, manifest), 'utf8')) as { version: string };
      assert.equal(pkg.version, releases[0]?.[1], manifest);
    }
  });

  it('fails on headings out of form (the checks above can fail)', () => {
    const broken = sections(
      '# Changelog\n\n## [Unreleased]\n\n### Added\n- x\n\n## [1.0.0] - 2026-04-01\n\n### Fixes\n- y\n### Added\n- a\n### Added\n- b\n',
    );
    assert.equal(broken[1]?.kinds.map((k) => k.kind).join(','), 'Fixes,Added,Added');
    assert.ok(!kinds.includes('Fixes'));
    assert.equal(release.exec('## [1.0.0-mvp] 2026-04-01'), null);
    assert.equal(release.exec('## 1.0.0-mvp - 2026-04-01'), null);
    assert.ok(compareVersions('1.0.0', '1.0.0-mvp') > 0 && compareVersions('1.1.0-mvp', '1.0.0') > 0);
  });
});
