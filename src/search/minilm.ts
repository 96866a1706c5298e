import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import ort from 'onnxruntime-node';
import { normalize, type Embedder } from './embedding.js';

/** sentence-transformers' max_seq_length for all-MiniLM-L6-v2. */
const maxTokens = 256;
/** Texts embedded per inference call: padding waste stays small, throughput stays high. */
const batchSize = 16;

export const defaultModelDir = (devDir: string) => resolve(devDir, 'models', 'all-MiniLM-L6-v2');

export class ModelMissingError extends Error {}

/**
 * all-MiniLM-L6-v2 (int8 ONNX, 384 dimensions) on onnxruntime's CPU provider: mean pooling over the
 * attention mask, then L2 normalisation, as sentence-transformers does. The model files come from
 * PyPI wheels (scripts/install-model.sh); nothing is fetched at run time.
 */
export class MiniLmEmbedder implements Embedder {
  readonly id = 'all-MiniLM-L6-v2-int8';
  readonly dimensions = 384;
  /** Unrelated sentences score about 0–0.15 with this model; related ones well above 0.3. */
  readonly similarityFloor = 0.2;
  /** Best of 0.25 … 1.5 on both Cranfield and CACM (bench:search, docs/decisions.md "Weighted fusion"). */
  readonly fusionWeight = 0.5;

  private constructor(
    private readonly tokenizer: Tokenizer,
    private readonly session: ort.InferenceSession,
  ) {}

  static async load(modelDir: string): Promise<MiniLmEmbedder> {
    const onnx = join(modelDir, 'onnx', 'model_quantized.onnx');
    if (!existsSync(onnx))
      throw new ModelMissingError(
        `the embedding model is not installed at ${modelDir}: run scripts/install-model.sh, or set EMBEDDINGS_PROVIDER=hashing`,
      );
    const tokenizer = new Tokenizer(
      JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8')),
      JSON.parse(readFileSync(join(modelDir, 'tokenizer_config.json'), 'utf8')),
    );
    const session = await ort.InferenceSession.create(onnx, { intraOpNumThreads: 2, graphOptimizationLevel: 'all' });
    return new MiniLmEmbedder(tokenizer, session);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batchSize) out.push(...(await this.embedBatch(texts.slice(i, i + batchSize))));
    return out;
  }

  private tokens(text: string): number[] {
    const ids = this.tokenizer.encode(text).ids;
    return ids.length > maxTokens ? [...ids.slice(0, maxTokens - 1), ids[ids.length - 1]!] : ids;
  }

  private async embedBatch(texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((t) => this.tokens(t));
    const width = Math.max(...encoded.map((ids) => ids.length));
    const ids = new BigInt64Array(texts.length * width);
    const mask = new BigInt64Array(texts.length * width);
    encoded.forEach((row, r) =>
      row.forEach((id, c) => {
        ids[r * width + c] = BigInt(id);
        mask[r * width + c] = 1n;
      }),
    );
    const dims = [texts.length, width];
    const { last_hidden_state: hidden } = await this.session.run({
      input_ids: new ort.Tensor('int64', ids, dims),
      attention_mask: new ort.Tensor('int64', mask, dims),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(texts.length * width), dims),
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
