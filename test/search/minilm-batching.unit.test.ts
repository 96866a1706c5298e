import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { defaultModelDir, MiniLmEmbedder } from '../../src/search/minilm.js';

// The model installed for the repository (scripts/install-model.sh; CI installs it before the tests).
const modelDir = defaultModelDir(resolve(process.env.PLATFORM_DEV_DIR ?? '.dev'));

const texts = [
  'Boundary layer transition on a flat plate at supersonic speeds, measured in a wind tunnel.',
  'heat',
  'An algorithm for sorting records on magnetic tape with few passes.',
  'The buckling of thin cylindrical shells under axial compression and external pressure, with the effect of initial imperfections on the critical load, compared with experiment over a wide range of radius to thickness ratios.',
  'Compilers.',
  'Shock waves',
  'A recursive descent parser for ALGOL 60 written in FORTRAN, and its error recovery.',
];

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('MiniLM batching (issue #23)', () => {
  it('gives the same vectors in sorted sub-batches as one text at a time, in the order given', async () => {
    const alone = await MiniLmEmbedder.load(modelDir, { batchSize: 1 });
    const batched = await MiniLmEmbedder.load(modelDir, { batchSize: 3, sortByLength: true });
    const one = await Promise.all(texts.map(async (t) => (await alone.embed([t]))[0]!));
    const many = await batched.embed(texts);
    assert.equal(many.length, texts.length);
    for (const [i, v] of many.entries()) {
      assert.equal(v.length, 384);
      const d = Math.max(...v.map((x, j) => Math.abs(x - one[i]![j]!)));
      assert.ok(d < 1e-4, `text ${i}: largest difference ${d}`); // padding changes only float rounding
    }
    // The texts differ: a vector put back at the wrong index would fail above, not pass by sameness.
    assert.ok(cosine(one[0]!, one[1]!) < 0.9);
    // Batched calls of the default embedder (one text per inference) agree too.
    const defaults = await MiniLmEmbedder.load(modelDir);
    const again = await defaults.embed(texts);
    for (const [i, v] of again.entries()) assert.ok(cosine(v, many[i]!) > 0.9999, `text ${i}`);
  });

  it('names truncated vectors apart, so a change of EMBEDDINGS_MAX_TOKENS re-embeds', async () => {
    const full = await MiniLmEmbedder.load(modelDir);
    const short = await MiniLmEmbedder.load(modelDir, { maxTokens: 16 });
    assert.equal(full.id, 'all-MiniLM-L6-v2-int8');
    assert.equal(short.id, 'all-MiniLM-L6-v2-int8-t16');
    const [a] = await full.embed([texts[3]!]);
    const [b] = await short.embed([texts[3]!]);
    assert.ok(cosine(a!, b!) < 0.999, 'truncation to 16 tokens changes a long text');
    await assert.rejects(MiniLmEmbedder.load(modelDir, { maxTokens: 512 }), RangeError);
  });
});
