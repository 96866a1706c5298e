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
  it("gives the same vectors in sorted sub-batches as one text at a time, in the order given, in its thread or in the caller's", async () => {
    const alone = await MiniLmEmbedder.load(modelDir, { batchSize: 1, thread: false });
    const batched = await MiniLmEmbedder.load(modelDir, { batchSize: 3, sortByLength: true, thread: true });
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
    // The default embedder (one text per inference, in its thread) gives the in-thread vectors exactly.
    const defaults = await MiniLmEmbedder.load(modelDir);
    const again = await defaults.embed(texts);
    for (const [i, v] of again.entries()) assert.deepEqual(v, one[i], `text ${i}`);
    // Calls at once are answered each with its own vectors.
    const [x, y] = await Promise.all([defaults.embed([texts[0]!]), defaults.embed([texts[2]!, texts[1]!])]);
    assert.deepEqual([x[0], y[0], y[1]], [one[0], one[2], one[1]]);
  });

  it("keeps the caller's thread free during inference", async () => {
    const embedder = await MiniLmEmbedder.load(modelDir);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await embedder.embed(texts.concat(texts, texts));
    clearInterval(timer);
    // In the caller's thread, a timer fires at most once per inference call (21 here); ticks count, not time.
    assert.ok(ticks > 2 * 21, `only ${ticks} timer ticks during 21 inferences`);
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
