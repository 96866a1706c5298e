import ort from 'onnxruntime-node';
import { normalize } from './embedding.js';

/** The onnxruntime settings of a MiniLM session (search/minilm.ts `MiniLmOptions`). */
export interface SessionSettings {
  threads: number;
  spinning: boolean;
  graphOptimizationLevel: 'disabled' | 'basic' | 'extended' | 'all';
}

export function createSession(onnxPath: string, s: SessionSettings): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(onnxPath, {
    intraOpNumThreads: s.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: s.graphOptimizationLevel,
    extra: { session: { intra_op: { allow_spinning: s.spinning ? '1' : '0' } } },
  });
}

/**
 * One inference call over texts already tokenized (padded to the longest), then mean pooling over the
 * attention mask and L2 normalisation, as sentence-transformers does. The same code in the calling
 * thread and in the inference thread (search/minilm-thread.ts): the same vectors either way.
 */
export async function inferBatch(session: ort.InferenceSession, encoded: number[][], dimensions: number): Promise<Float32Array[]> {
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
  const { last_hidden_state: hidden } = await session.run({
    input_ids: new ort.Tensor('int64', ids, dims),
    attention_mask: new ort.Tensor('int64', mask, dims),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(encoded.length * width), dims),
  });
  const h = hidden!.data as Float32Array;
  const d = dimensions;
  return encoded.map((row, r) => {
    const v = new Float32Array(d);
    for (let t = 0; t < row.length; t++) {
      const base = (r * width + t) * d;
      for (let j = 0; j < d; j++) v[j]! += h[base + j]!;
    }
    return normalize(v); // the mean's 1/n vanishes in the normalisation
  });
}
