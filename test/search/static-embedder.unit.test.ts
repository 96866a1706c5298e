import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { createEmbedder } from '../../src/search/embedder.js';
import { defaultModelDir, ModelMissingError } from '../../src/search/minilm.js';
import { StaticEmbedder, StaticModelCorruptError } from '../../src/search/static-embedder.js';

// The files distilled for the repository (scripts/install-model.sh runs scripts/distill-static.ts).
const modelDir = defaultModelDir(resolve(process.env.PLATFORM_DEV_DIR ?? '.dev'));
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const scratch = mkdtempSync(join(tmpdir(), 'static-embedder-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the model directory's static files (and tokenizer) that a test may damage. */
function copyModel(
  name: string,
  files = ['tokenizer.json', 'tokenizer_config.json', 'static/manifest.json', 'static/vectors.f32'],
): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'static'), { recursive: true });
  for (const f of files) copyFileSync(join(modelDir, f), join(dir, f));
  return dir;
}

describe('static embedder (issue #33)', () => {
  const embedder = StaticEmbedder.load(modelDir);

  it('names its dimensions in its id and gives unit vectors of that length, the same for the same text', async () => {
    assert.equal(embedder.id, `static-minilm-v1-${embedder.dimensions}`);
    assert.equal(embedder.dimensions, embedder.manifest.dims);
    const texts = ['Boundary layer transition on a flat plate at supersonic speeds.', 'heat', 'Compilers.'];
    const [a, b] = [await embedder.embed(texts), await embedder.embed([...texts].reverse())];
    for (const [i, v] of a.entries()) {
      assert.equal(v.length, embedder.dimensions);
      assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5, `text ${i} has norm ${Math.hypot(...v)}`);
      assert.deepEqual(v, b[texts.length - 1 - i]);
    }
    assert.ok(cosine(a[0]!, a[1]!) < 0.99, 'different texts give different vectors');
  });

  it('ranks related sentences closer than unrelated ones', async () => {
    const [wing, airfoil, sorting, tape] = await embedder.embed([
      'Lift and drag of a swept wing in supersonic flow.',
      'Pressure distribution over an airfoil at high Mach numbers.',
      'An algorithm for sorting records in a file.',
      'Merging sorted runs of records stored on magnetic tape.',
    ]);
    assert.ok(cosine(wing!, airfoil!) > cosine(wing!, sorting!), 'aerodynamics pair');
    assert.ok(cosine(sorting!, tape!) > cosine(sorting!, airfoil!), 'sorting pair');
  });

  it('ignores special tokens written in the text, and gives an empty text the zero vector (similar to nothing)', async () => {
    const [plain, marked] = await embedder.embed(['shock waves', '[CLS] shock waves [SEP]']);
    assert.ok(cosine(plain!, marked!) > 0.999);
    const [empty] = await embedder.embed(['']);
    assert.equal(empty!.length, embedder.dimensions);
    assert.ok(empty!.every((x) => x === 0));
  });

  it('is what EMBEDDINGS_PROVIDER=static creates', async () => {
    const created = await createEmbedder({
      EMBEDDINGS_PROVIDER: 'static',
      EMBEDDINGS_MODEL: 'unused',
      EMBEDDINGS_DIMENSIONS: 384,
      EMBEDDINGS_MODEL_DIR: modelDir,
      PLATFORM_DEV_DIR: '.dev',
    });
    assert.ok(created instanceof StaticEmbedder);
    assert.equal(created.id, embedder.id);
  });

  it('says to run scripts/install-model.sh when its files are missing', () => {
    const dir = copyModel('missing', ['tokenizer.json', 'tokenizer_config.json', 'static/manifest.json']);
    assert.throws(
      () => StaticEmbedder.load(dir),
      (err: Error) => err instanceof ModelMissingError && /scripts\/install-model\.sh/.test(err.message) && err.message.includes(dir),
    );
  });

  it("checks the vectors against the distillation manifest's sha256 on load", () => {
    const dir = copyModel('corrupt');
    assert.ok(StaticEmbedder.load(dir) instanceof StaticEmbedder); // the intact copy loads
    const path = join(dir, 'static', 'vectors.f32');
    const bytes = readFileSync(path);
    bytes[bytes.length - 1]! ^= 0x01; // one bit of one float
    writeFileSync(path, bytes);
    assert.throws(
      () => StaticEmbedder.load(dir),
      (err: Error) => err instanceof StaticModelCorruptError && /does not match its manifest/.test(err.message),
    );
  });
});
