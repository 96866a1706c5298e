import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import ort from 'onnxruntime-node';
import { normalize, type Embedder } from './embedding.js';

/** How the model runs; the defaults are what bench/indexing-throughput.ts measured best on 2 shared cores. */
export interface MiniLmOptions {
  /**
   * Tokens per text: sentence-transformers' max_seq_length for all-MiniLM-L6-v2 is 256. Fewer is faster
   * (the cost is per token) but truncates long texts: 128 measured −1.4 % (Cranfield) and −1.5 % (CACM)
   * hybrid nDCG@10, so 256 stays the default (`EMBEDDINGS_MAX_TOKENS`).
   */
  maxTokens: number;
  /**
   * Texts per inference call, after sorting a call's texts by length (each batch pads to its own
   * longest). One: a text alone measured 1.3–2.8× faster than batches of 16 sorted by length on these
   * cores (Cranfield / CACM): a batch's activations ([16, 256, 1536] floats is 25 MB) leave the cache,
   * one text's stay in it, and a text alone has no padding. Vectors are the same either way.
   */
  batchSize: number;
  /**
   * onnxruntime's intra-op threads (`EMBEDDINGS_THREADS`). One: on two cores shared with the API,
   * Temporal and the store, two spinning threads measured 2–4× slower than one (they wait on each other
   * whenever a core is taken); a machine that only indexes can give it its cores.
   */
  threads: number;
  /** Whether intra-op threads spin while idle (onnxruntime's default); off, they yield the core. */
  spinning: boolean;
  /** Sort a call's texts by token count before batching (less padding); false: in the given order. */
  sortByLength: boolean;
  /** onnxruntime's graph optimisations ('all' also lays out kernels for this CPU). */
  graphOptimizationLevel: 'disabled' | 'basic' | 'extended' | 'all';
}

/** sentence-transformers' max_seq_length for all-MiniLM-L6-v2. */
export const miniLmMaxTokens = 256;

export const defaultMiniLmOptions: MiniLmOptions = {
  maxTokens: miniLmMaxTokens,
  batchSize: 1,
  threads: 1,
  spinning: false,
  sortByLength: true,
  graphOptimizationLevel: 'all',
};

export const defaultModelDir = (devDir: string) => resolve(devDir, 'models', 'all-MiniLM-L6-v2');

export class ModelMissingError extends Error {}

/**
 * all-MiniLM-L6-v2 (int8 ONNX, 384 dimensions) on onnxruntime's CPU provider: mean pooling over the
 * attention mask, then L2 normalisation, as sentence-transformers does. The model files come from
 * PyPI wheels (scripts/install-model.sh); nothing is fetched at run time.
 */
export class MiniLmEmbedder implements Embedder {
  /**
   * Names the vectors: a stored vector counts only for the embedder that made it, so truncating
   * differently (`EMBEDDINGS_MAX_TOKENS`) names other vectors, and the next write re-embeds.
   */
  readonly id: string;
  readonly dimensions = 384;
  /** Unrelated sentences score about 0–0.15 with this model; related ones well above 0.3. */
  readonly similarityFloor = 0.2;
  /** Best of 0.25 … 1.5 on both Cranfield and CACM (bench:search, docs/decisions.md "Weighted fusion"). */
  readonly fusionWeight = 0.5;

  private constructor(
    private readonly tokenizer: Tokenizer,
    private readonly session: ort.InferenceSession,
    private readonly options: MiniLmOptions,
  ) {
    this.id = options.maxTokens === miniLmMaxTokens ? 'all-MiniLM-L6-v2-int8' : `all-MiniLM-L6-v2-int8-t${options.maxTokens}`;
  }

  static async load(modelDir: string, options: Partial<MiniLmOptions> = {}): Promise<MiniLmEmbedder> {
    const o = { ...defaultMiniLmOptions, ...options };
    if (!(Number.isInteger(o.maxTokens) && o.maxTokens >= 8 && o.maxTokens <= miniLmMaxTokens))
      throw new RangeError(`maxTokens must be an integer from 8 to ${miniLmMaxTokens}`);
    if (!(Number.isInteger(o.batchSize) && o.batchSize >= 1)) throw new RangeError('batchSize must be a positive integer');
    const onnx = join(modelDir, 'onnx', 'model_quantized.onnx');
    if (!existsSync(onnx))
      throw new ModelMissingError(
        `the embedding model is not installed at ${modelDir}: run scripts/install-model.sh, or set EMBEDDINGS_PROVIDER=hashing`,
      );
    const tokenizer = new Tokenizer(
      JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8')),
      JSON.parse(readFileSync(join(modelDir, 'tokenizer_config.json'), 'utf8')),
    );
    const session = await ort.InferenceSession.create(onnx, {
      intraOpNumThreads: o.threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: o.graphOptimizationLevel,
      extra: { session: { intra_op: { allow_spinning: o.spinning ? '1' : '0' } } },
    });
    return new MiniLmEmbedder(tokenizer, session, o);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((t) => this.tokens(t));
    const order = encoded.map((_, i) => i);
    if (this.options.sortByLength) order.sort((a, b) => encoded[a]!.length - encoded[b]!.length);
    const out = new Array<Float32Array>(texts.length);
    const { batchSize } = this.options;
    for (let i = 0; i < order.length; i += batchSize) {
      const slice = order.slice(i, i + batchSize);
      const vectors = await this.embedBatch(slice.map((j) => encoded[j]!));
      slice.forEach((j, k) => (out[j] = vectors[k]!));
    }
    return out;
  }

  /** Tokens the model sees for this text, after truncation (the cost of embedding it is about proportional). */
  tokenCount(text: string): number {
    return this.tokens(text).length;
  }

  private tokens(text: string): number[] {
    const ids = this.tokenizer.encode(text).ids;
    const max = this.options.maxTokens;
    return ids.length > max ? [...ids.slice(0, max - 1), ids[ids.length - 1]!] : ids;
  }

  private async embedBatch(encoded: number[][]): Promise<Float32Array[]> {
    const width = Math.max(...encoded.map((ids) => ids.length));
    const ids = new BigInt64Array(encoded.length * width);
    const mask = new BigInt64Array(encoded.length * width);
    encoded.forEach((row, r) =>
      row.forEach((id, c) => {
        ids[r * width + c] = BigInt(id);
        mask[r * width + c] = 1n;
      }),
    );
    const dims = [encoded.length, width];
    const { last_hidden_state: hidden } = await this.session.run({
      input_ids: new ort.Tensor('int64', ids, dims),
      attention_mask: new ort.Tensor('int64', mask, dims),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(encoded.length * width), dims),
    });
    const h = hidden!.data as Float32Array;
    const d = this.dimensions;
    return encoded.map((row, r) => {
      const v = new Float32Array(d);
      for (let t = 0; t < row.length; t++) {
        const base = (r * width + t) * d;
        for (let j = 0; j < d; j++) v[j]! += h[base + j]!;
      }
      return normalize(v); // the mean's 1/n vanishes in the normalisation
    });
  }
}
