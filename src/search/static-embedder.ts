import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { z } from 'zod';
import type { Embedder } from './embedding.js';
import { normalize } from './embedding.js';
import { ModelMissingError } from './minilm.js';

/** How scripts/distill-static.ts made the token vectors; part of the manifest, so other settings distil again. */
export const distillSettingsSchema = z.object({
  version: z.number().int(),
  /** 'mean': of [CLS], the token and [SEP]; 'token': the token's own output. */
  pooling: z.enum(['mean', 'token']),
  /** Subtract the mean token vector (the common direction every token shares). */
  center: z.boolean(),
  /** Principal components kept; null: no projection. */
  dims: z.number().int().positive().nullable(),
  /** SIF coefficient a of the weight a / (a + p), p from Zipf's law over vocabulary order; null: unweighted. */
  sif: z.number().positive().nullable(),
});
export type DistillSettings = z.infer<typeof distillSettingsSchema>;

export const staticManifestSchema = z.object({
  dims: z.number().int().positive(),
  vocabSize: z.number().int().positive(),
  tokens: z.number().int().positive(),
  /** sha256 of vectors.f32, checked on load. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  settings: distillSettingsSchema,
  source: z.object({ onnx: z.string(), tokenizer: z.string() }),
});
export type StaticManifest = z.infer<typeof staticManifestSchema>;

export const staticVectorsFile = 'vectors.f32';

/** Texts embedded between two yields to the event loop (bench/embedders.ts: 1,000–3,000 documents/s). */
const yieldEvery = 16;

export class StaticModelCorruptError extends Error {}

/**
 * Static token embeddings distilled from all-MiniLM-L6-v2 (scripts/distill-static.ts, Model2Vec-style):
 * a text's vector is the normalised sum of its tokens' vectors (the SIF weights are in the vectors).
 * No transformer runs: 100–250× MiniLM's documents per second on one core (bench/embedders.ts), but
 * alone it ranks 0.73–0.76× MiniLM and fused with BM25 0.99× BM25 alone on Cranfield and CACM, and
 * next to MiniLM's vectors it lowers hybrid: an option for ingest-bound setups, not the default nor a
 * first tier under MiniLM.
 */
export class StaticEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  /**
   * Static cosines run high: unrelated documents' median is 0.29 (CACM) to 0.42 (Cranfield), relevant
   * ones' 10th percentile 0.35–0.40 (bench/embedders.ts). 0.4 measured best or level with 0.2–0.3 on
   * both collections at weight 0.25; 0.5 and 0.6 won on CACM and lost on Cranfield.
   */
  readonly similarityFloor = 0.4;
  /**
   * Tuned on Cranfield and on CACM alike, 0.25 was the best of 0.25 … 1.5; even so hybrid with this
   * embedder measured 0.98–0.99× lexical alone (bench/embedders.ts): a weak retriever counts little.
   */
  readonly fusionWeight = 0.25;

  private constructor(
    private readonly tokenizer: Tokenizer,
    private readonly table: Float32Array,
    readonly manifest: StaticManifest,
  ) {
    this.dimensions = manifest.dims;
    this.id = `static-minilm-v${manifest.settings.version}-${manifest.dims}`;
  }

  /** `modelDir` is MiniLM's (defaultModelDir): the tokenizer is its, the vectors are under static/. */
  static load(modelDir: string): StaticEmbedder {
    const dir = join(modelDir, 'static');
    const manifestPath = join(dir, 'manifest.json');
    const vectorsPath = join(dir, staticVectorsFile);
    const tokenizerPath = join(modelDir, 'tokenizer.json');
    if (![manifestPath, vectorsPath, tokenizerPath].every((p) => existsSync(p)))
      throw new ModelMissingError(
        `the static embedding model is not installed at ${dir}: run scripts/install-model.sh, or set EMBEDDINGS_PROVIDER=hashing`,
      );
    const manifest = staticManifestSchema.parse(JSON.parse(readFileSync(manifestPath, 'utf8')));
    const bytes = readFileSync(vectorsPath);
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (digest !== manifest.sha256 || bytes.length !== manifest.vocabSize * manifest.dims * 4)
      throw new StaticModelCorruptError(
        `${vectorsPath} does not match its manifest (sha256 ${digest}, expected ${manifest.sha256}): run scripts/install-model.sh to distil it again`,
      );
    // A Float32Array view needs 4-byte alignment; a Buffer's offset in its pool need not have it.
    const table =
      bytes.byteOffset % 4 === 0
        ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)
        : new Float32Array(new Uint8Array(bytes).buffer);
    const tokenizer = new Tokenizer(
      JSON.parse(readFileSync(tokenizerPath, 'utf8')),
      JSON.parse(readFileSync(join(modelDir, 'tokenizer_config.json'), 'utf8')),
    );
    return new StaticEmbedder(tokenizer, table, manifest);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const [i, text] of texts.entries()) {
      // About a millisecond per long document runs in the caller's thread: let requests in between.
      if (i > 0 && i % yieldEvery === 0) await new Promise((resolve) => setImmediate(resolve));
      out.push(this.embedOne(text));
    }
    return out;
  }

  private embedOne(text: string): Float32Array {
    const d = this.dimensions;
    const v = new Float32Array(d);
    // Special and unused tokens have zero rows: they add nothing. The mean's 1/n vanishes in the normalisation.
    for (const id of this.tokenizer.encode(text, { add_special_tokens: false }).ids) {
      if (id < 0 || id >= this.manifest.vocabSize) continue;
      const base = id * d;
      for (let j = 0; j < d; j++) v[j]! += this.table[base + j]!;
    }
    return normalize(v);
  }
}
