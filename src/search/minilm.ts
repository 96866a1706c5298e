import { existsSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Tokenizer } from '@huggingface/tokenizers';
import type { Embedder } from './embedding.js';
import { createSession, inferBatch } from './minilm-inference.js';
import type { InferenceAnswer, InferenceRequest, InferenceThreadData } from './minilm-thread.js';

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
  /**
   * Run inference in a thread of its own (search/minilm-thread.ts). onnxruntime-node's `run` holds the
   * JavaScript thread for the whole inference (measured: one 5 ms timer tick per text, gaps of 140 ms
   * for a 256-token text, over a second for a batch of 16): in the calling thread it delays the
   * worker's workflow tasks, heartbeats and, where the API shares the process, its requests and its
   * search-index sync. Same vectors either way.
   */
  thread: boolean;
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
  thread: true,
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
    private readonly infer: (batches: number[][][]) => Promise<Float32Array[]>,
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
    const dimensions = 384;
    let infer: (batches: number[][][]) => Promise<Float32Array[]>;
    if (o.thread) {
      const thread = new InferenceThread({ onnxPath: onnx, settings: o, dimensions });
      infer = (batches) => thread.run(batches);
    } else {
      const session = await createSession(onnx, o);
      infer = async (batches) => {
        const out: Float32Array[] = [];
        for (const b of batches) out.push(...(await inferBatch(session, b, dimensions)));
        return out;
      };
    }
    const embedder = new MiniLmEmbedder(tokenizer, infer, o);
    await embedder.embed(['']); // the session loads (and a broken model fails) here, not on the first write
    return embedder;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((t) => this.tokens(t));
    const order = encoded.map((_, i) => i);
    if (this.options.sortByLength) order.sort((a, b) => encoded[a]!.length - encoded[b]!.length);
    const { batchSize } = this.options;
    const slices: number[][] = [];
    for (let i = 0; i < order.length; i += batchSize) slices.push(order.slice(i, i + batchSize));
    const vectors = await this.infer(slices.map((slice) => slice.map((j) => encoded[j]!)));
    const out = new Array<Float32Array>(texts.length);
    order.forEach((j, k) => (out[j] = vectors[k]!));
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
}

let nextRequest = 0;

/**
 * The inference thread of one embedder: started on first use, requests answered in order. It keeps
 * the process alive only while a request is pending; if it dies, pending requests fail and the next
 * request starts another.
 */
class InferenceThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();

  constructor(private readonly data: InferenceThreadData) {}

  run(batches: number[][][]): Promise<Float32Array[]> {
    const worker = this.worker ?? this.start();
    const id = nextRequest++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, batches } satisfies InferenceRequest);
    });
  }

  private start(): Worker {
    const ext = extname(fileURLToPath(import.meta.url));
    const entry = new URL(`./minilm-thread${ext}`, import.meta.url).href;
    // Run from TypeScript sources (tsx), the thread registers tsx's loader before it imports its entry.
    const source =
      ext === '.ts'
        ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(entry)}))`
        : `import(${JSON.stringify(entry)})`;
    const worker = new Worker(source, { eval: true, workerData: this.data });
    worker.unref();
    worker.on('message', (answer: InferenceAnswer) => {
      const waiting = this.pending.get(answer.id);
      if (!waiting) return;
      this.pending.delete(answer.id);
      if (this.pending.size === 0) worker.unref();
      if ('error' in answer) waiting.reject(new Error(`MiniLM inference failed: ${answer.error}`));
      else waiting.resolve(answer.vectors);
    });
    const fail = (err: Error) => {
      if (this.worker !== worker) return; // an earlier thread: its requests were failed already
      this.worker = null;
      for (const w of this.pending.values()) w.reject(err);
      this.pending.clear();
    };
    worker.on('error', (err) => fail(err));
    worker.on('exit', (code) => fail(new Error(`MiniLM inference thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
