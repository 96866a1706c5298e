// What the README says that the first-session test (readme.test.ts) cannot run: its two commands are
// the package.json scripts and the command CI runs, what it says `npm start` prints is what
// scripts/dev.ts prints, its folder table lists every folder under src/, and every `npm run <script>`
// in the README and docs/ exists. docs/configuration.md lists every variable the platform reads.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fences } from './markdown.js';

const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const readme = read('README.md');
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
const docPages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe("the README's commands", () => {
  const twoCommands = fences(readme).find((f) => f.info === 'sh static' && /^npm start\b/m.test(f.code));

  it('names `npm start` and `npm test`, the package.json scripts', () => {
    assert.ok(twoCommands, 'a ```sh static block with npm start');
    const commands = twoCommands.code.split('\n').map((l) => l.replace(/#.*$/, '').trim());
    assert.deepEqual(commands, ['npm start', 'npm test']);
    assert.equal(scripts.start, 'bash scripts/start.sh');
    assert.equal(scripts.test, 'bash scripts/test.sh');
    assert.match(read('scripts/start.sh'), /scripts\/dev\.ts/, 'npm start runs scripts/dev.ts, whose banner the README shows');
  });

  it('is the test command CI runs', () => {
    const ci = read('.ci/run')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    assert.equal(ci.at(-1), 'npm test', 'the last command of .ci/run');
  });

  it('shows the banner npm start prints: every label is one scripts/dev.ts says', () => {
    const banner = fences(readme).find((f) => f.info === 'text' && f.code.startsWith('[platform] API'));
    assert.ok(banner, 'the banner block');
    const dev = read('scripts/dev.ts') + read('scripts/start-settings.ts');
    const labels = banner.code
      .split('\n')
      .map((l) => /^\[platform\] (\S[^:]*?)(?: {2,}|$)/.exec(l)?.[1])
      .filter((l): l is string => !!l);
    assert.ok(labels.length >= 6, labels.join(', '));
    for (const label of labels) {
      const said = label === 'Ctrl-C stops everything.' ? label : new RegExp(`\`${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} {2,}`);
      assert.ok(typeof said === 'string' ? dev.includes(said) : said.test(dev), `scripts/dev.ts prints "${label}"`);
    }
    assert.ok(dev.includes("'admin-credentials.json'"), 'the Admin line names the credentials file');
  });

  it('lists every folder under src/ in its folder table', () => {
    const table = readme.slice(readme.indexOf('| folder | holds |')).split('\n\n')[0] ?? '';
    // The first cell of each row names the folders it describes.
    const firstCells = table.split('\n').map((row) => row.split('|')[1] ?? '');
    const listed = new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`([a-z-]+)\/`/g)].map((m) => m[1] ?? '')));
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    assert.deepEqual(
      folders.filter((f) => !listed.has(f)),
      [],
      'folders missing from the table',
    );
    assert.deepEqual(
      [...listed].filter((f) => !folders.includes(f)),
      [],
      'the table names folders that do not exist',
    );
  });

  it('names only `npm run` scripts that exist, in the README and docs/', () => {
    for (const page of docPages) {
      for (const [, name = ''] of read(page).matchAll(/npm run ([a-z][a-z:-]*)/g)) {
        assert.ok(scripts[name], `${page} names npm run ${name}, which package.json does not have`);
      }
    }
  });
});

describe('docs/configuration.md', () => {
  const page = read('docs/configuration.md');
  const documented = new Set(
    page
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => [...(l.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] ?? '')),
  );
  const read_ = read('src/kernel/config/env.ts');
  const schema = read_.slice(0, read_.indexOf('export function loadConfig'));
  const platformVariables = [...schema.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1] ?? '');

  it('documents every variable src/kernel/config/env.ts reads', () => {
    assert.ok(platformVariables.length > 50, `${platformVariables.length} variables found`);
    assert.deepEqual(
      platformVariables.filter((v) => !documented.has(v)),
      [],
    );
  });

  it('documents no variable that nothing reads', () => {
    const readers = [read_, read('scripts/dev.ts'), read('scripts/start-settings.ts'), read('temporal-dev/engines.ts')].join('\n');
    assert.deepEqual(
      [...documented].filter((v) => !readers.includes(v)),
      [],
    );
  });

  it('agrees with .env.example on the names', () => {
    const example = new Set([...read('.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1] ?? ''));
    assert.deepEqual(
      platformVariables.filter((v) => !example.has(v)),
      [],
    );
  });
});
