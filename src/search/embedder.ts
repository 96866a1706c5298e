import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { terms } from './analyzer.js';
import type { Embedder } from './embedding.js';
import { normalize } from './embedding.js';

export type { Embedder } from './embedding.js';

function hash32(value: string): number {
  return createHash('md5').update(value).digest().readUInt32LE(0);
}

/**
 * The offline default: a deterministic hashing embedder (no model, no download). Stemmed words,
 * adjacent word pairs and character trigrams of each word are hashed with a sign into a fixed number
 * of dimensions and weighted by sublinear term frequency. It captures lexical and morphological
 * similarity, not meaning; configure a real embedding model for that (EMBEDDINGS_PROVIDER=openai).
 */
export class HashingEmbedder implements Embedder {
  readonly id: string;
  readonly similarityFloor = 0.05;
  /** Best of 0.25 … 1.5 on both Cranfield and CACM; hybrid with it still ranks below BM25 alone (it is a fallback, not a model). */
  readonly fusionWeight = 0.25;

  constructor(readonly dimensions = 384) {
    this.id = `hashing-v1-${dimensions}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  private embedOne(text: string): Float32Array {
    // Each feature: a kind weight (words 1, word pairs 0.5, trigrams 0.25) times 1 + ln(occurrences).
    const features = new Map<string, { weight: number; count: number }>();
    const add = (feature: string, weight: number) => {
      const f = features.get(feature);
      if (f) f.count++;
      else features.set(feature, { weight, count: 1 });
    };
    const words = terms(text);
    words.forEach((word, i) => {
      add(`w:${word}`, 1);
      if (i > 0) add(`b:${words[i - 1]} ${word}`, 0.5);
      const padded = `^${word}$`;
      for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, 0.25);
    });
    const v = new Float32Array(this.dimensions);
    for (const [feature, { weight, count }] of features) {
      const h = hash32(feature);
      const sign = h & 0x80000000 ? -1 : 1;
      v[h % this.dimensions]! += sign * weight * (1 + Math.log(count));
    }
    return normalize(v);
  }
}

/** Any OpenAI-compatible embeddings endpoint (OpenAI, Azure, vLLM, Ollama, a local server). */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  readonly similarityFloor = 0.2;
  /** Unmeasured here (no such model on this machine): plain RRF; set SEARCH_SEMANTIC_WEIGHT after measuring yours. */
  readonly fusionWeight = 1;
  private readonly client: OpenAI;

  constructor(
    private readonly model: string,
    readonly dimensions: number,
    options: { baseURL?: string; apiKey?: string },
  ) {
    this.id = `openai:${model}:${dimensions}`;
    this.client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey ?? 'unused', maxRetries: 2, timeout: 30_000 });
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const res = await this.client.embeddings.create({
      model: this.model,
      input: texts,
      dimensions: this.dimensions,
      encoding_format: 'float',
    });
    return res.data
      .sort((a, b) => a.index - b.index)
      .map((d) => {
        if (d.embedding.length !== this.dimensions)
          throw new Error(`embedding has ${d.embedding.length} dimensions, expected ${this.dimensions}`);
        return normalize(Float32Array.from(d.embedding));
      });
  }
}

/**
 * The configured embedder: all-MiniLM-L6-v2 on onnxruntime (default, installed by
 * scripts/install-model.sh), static token vectors distilled from it (same script), the hashing
 * embedder, or an OpenAI-compatible endpoint.
 */
export async function createEmbedder(config: {
  EMBEDDINGS_PROVIDER: 'minilm' | 'static' | 'hashing' | 'openai';
  EMBEDDINGS_MODEL: string;
  EMBEDDINGS_DIMENSIONS: number;
  EMBEDDINGS_MODEL_DIR?: string;
  EMBEDDINGS_THREADS?: number;
  EMBEDDINGS_MAX_TOKENS?: number;
  EMBEDDINGS_BASE_URL?: string;
  EMBEDDINGS_API_KEY?: string;
  PLATFORM_DEV_DIR: string;
}): Promise<Embedder> {
  switch (config.EMBEDDINGS_PROVIDER) {
    case 'openai':
      return new OpenAIEmbedder(config.EMBEDDINGS_MODEL, config.EMBEDDINGS_DIMENSIONS, {
        baseURL: config.EMBEDDINGS_BASE_URL,
        apiKey: config.EMBEDDINGS_API_KEY,
      });
    case 'hashing':
      return new HashingEmbedder(config.EMBEDDINGS_DIMENSIONS);
    case 'static': {
      const [{ StaticEmbedder }, { defaultModelDir }] = await Promise.all([import('./static-embedder.js'), import('./minilm.js')]);
      return StaticEmbedder.load(config.EMBEDDINGS_MODEL_DIR ?? defaultModelDir(config.PLATFORM_DEV_DIR));
    }
    case 'minilm': {
      const { MiniLmEmbedder, defaultModelDir } = await import('./minilm.js');
      return MiniLmEmbedder.load(config.EMBEDDINGS_MODEL_DIR ?? defaultModelDir(config.PLATFORM_DEV_DIR), {
        ...(config.EMBEDDINGS_THREADS === undefined ? {} : { threads: config.EMBEDDINGS_THREADS }),
        ...(config.EMBEDDINGS_MAX_TOKENS === undefined ? {} : { maxTokens: config.EMBEDDINGS_MAX_TOKENS }),
      });
    }
  }
}
