// Distils a static embedding model from the installed all-MiniLM-L6-v2 (Model2Vec-style, issue #33):
// every ordinary vocabulary token goes through the transformer alone ([CLS] token [SEP]), its output is
// mean-pooled, the token vectors are centred (optionally projected on their first principal
// components: measured, not kept), and each is weighted by a SIF weight with token frequencies
// estimated by Zipf's law from the vocabulary order (BERT's WordPiece vocabulary lists its word
// pieces roughly by frequency). A text's vector is then
// the mean of its tokens' vectors (src/search/static-embedder.ts): no transformer at index or query time.
//
//   node --import tsx scripts/distill-static.ts [modelDir]
//
// Writes <modelDir>/static/vectors.f32 (one row per vocabulary id, zero for skipped tokens) and
// manifest.json; skipped when the manifest names these settings and the same source files.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ort from 'onnxruntime-node';
import { createSession } from '../src/search/minilm-inference.js';
import { staticManifestSchema, staticVectorsFile, type DistillSettings, type StaticManifest } from '../src/search/static-embedder.js';

/**
 * Measured on Cranfield and CACM alike (nDCG@10 of the vectors alone and in hybrid): mean pooling
 * beat the token's own output, centring helped, PCA to 256 or 128 dimensions lost a little (384 kept),
 * and SIF a = 3e-5 was best or near-best on both (1e-3, 1e-4, 1e-5, 1e-6 and unweighted measured).
 * Changing any setting changes the vectors: bump `version`, which the embedder's id names, so that
 * stored vectors of the old model are recomputed.
 */
export const defaultSettings: DistillSettings = { version: 1, pooling: 'mean', center: true, dims: null, sif: 3e-5 };

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

/** Vocabulary ids worth a vector: not [PAD]/[UNK]/[CLS]/[SEP]/[MASK], not [unusedN]. */
export function ordinaryTokens(tokenizerJson: { model: { vocab: Record<string, number> }; added_tokens: { id: number }[] }): number[] {
  const special = new Set(tokenizerJson.added_tokens.map((t) => t.id));
  return Object.entries(tokenizerJson.model.vocab)
    .filter(([token, id]) => !special.has(id) && !/^\[unused\d+\]$/.test(token))
    .map(([, id]) => id)
    .sort((a, b) => a - b);
}

/**
 * The transformer's output for each token alone: rows of 384 floats, in `ids` order. `pooling` 'mean'
 * averages [CLS], the token and [SEP] (sentence-transformers' pooling of a one-token text); 'token'
 * keeps the token's own output.
 */
export async function tokenOutputs(modelDir: string, ids: number[], pooling: 'mean' | 'token', batch = 512): Promise<Float32Array> {
  const session = await createSession(join(modelDir, 'onnx', 'model_quantized.onnx'), {
    threads: 2,
    spinning: false,
    graphOptimizationLevel: 'all',
  });
  const cls = 101n;
  const sep = 102n;
  const d = 384;
  const out = new Float32Array(ids.length * d);
  for (let start = 0; start < ids.length; start += batch) {
    const rows = ids.slice(start, start + batch);
    const input = new BigInt64Array(rows.length * 3);
    rows.forEach((id, r) => input.set([cls, BigInt(id), sep], r * 3));
    const dims = [rows.length, 3];
    const { last_hidden_state: hidden } = await session.run({
      input_ids: new ort.Tensor('int64', input, dims),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(rows.length * 3).fill(1n), dims),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(rows.length * 3), dims),
    });
    const h = hidden!.data as Float32Array;
    for (let r = 0; r < rows.length; r++) {
      const v = out.subarray((start + r) * d, (start + r + 1) * d);
      if (pooling === 'token') v.set(h.subarray((r * 3 + 1) * d, (r * 3 + 2) * d));
      else for (let t = 0; t < 3; t++) for (let j = 0; j < d; j++) v[j]! += h[(r * 3 + t) * d + j]! / 3;
    }
  }
  await session.release();
  return out;
}

/** Eigenvectors of a symmetric matrix (cyclic Jacobi), as rows, by descending eigenvalue. */
function eigenvectors(a: Float64Array, n: number): Float64Array[] {
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q]! ** 2;
    if (off < 1e-18) break;
    for (let p = 0; p < n; p++)
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-30) continue;
        const theta = (a[q * n + q]! - a[p * n + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
  }
  const order = [...Array(n).keys()].sort((i, j) => a[j * n + j]! - a[i * n + i]!);
  return order.map((col) => Float64Array.from({ length: n }, (_, k) => v[k * n + col]!));
}

/**
 * Centring, projection on the first `dims` principal components (all of them: a rotation, which
 * keeps cosines of centred vectors), and the SIF weight a / (a + p(rank)), p ∝ 1 / rank (Zipf), rank
 * the token's place among the kept ones in vocabulary order. Returns rows of `dims` floats.
 */
export function postProcess(raw: Float32Array, count: number, s: Pick<DistillSettings, 'center' | 'dims' | 'sif'>): Float32Array {
  const n = raw.length / count;
  const mean = new Float64Array(n);
  if (s.center) for (let r = 0; r < count; r++) for (let j = 0; j < n; j++) mean[j]! += raw[r * n + j]! / count;
  let rows = Float32Array.from(raw, (x, i) => x - mean[i % n]!);
  if (s.dims !== null) {
    const cov = new Float64Array(n * n);
    for (let r = 0; r < count; r++) {
      const row = rows.subarray(r * n, (r + 1) * n);
      for (let i = 0; i < n; i++) {
        const x = row[i]!;
        for (let j = i; j < n; j++) cov[i * n + j]! += x * row[j]!;
      }
    }
    for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) cov[i * n + j] = cov[j * n + i]!;
    const components = eigenvectors(cov, n).slice(0, s.dims);
    const projected = new Float32Array(count * s.dims);
    for (let r = 0; r < count; r++)
      components.forEach((c, k) => {
        let dot = 0;
        for (let j = 0; j < n; j++) dot += rows[r * n + j]! * c[j]!;
        projected[r * s.dims! + k] = dot;
      });
    rows = projected;
  }
  if (s.sif !== null) {
    const d = rows.length / count;
    let harmonic = 0;
    for (let r = 0; r < count; r++) harmonic += 1 / (r + 2);
    for (let r = 0; r < count; r++) {
      const p = 1 / (r + 2) / harmonic;
      const w = s.sif / (s.sif + p);
      for (let j = 0; j < d; j++) rows[r * d + j]! *= w;
    }
  }
  return rows;
}

/** The source files a distillation depends on, by digest: another model or tokenizer distils again. */
function sourceDigests(modelDir: string): StaticManifest['source'] {
  return {
    onnx: sha256(readFileSync(join(modelDir, 'onnx', 'model_quantized.onnx'))),
    tokenizer: sha256(readFileSync(join(modelDir, 'tokenizer.json'))),
  };
}

export async function distill(modelDir: string, settings = defaultSettings): Promise<{ skipped: boolean; manifest: StaticManifest }> {
  const dir = join(modelDir, 'static');
  const manifestPath = join(dir, 'manifest.json');
  const source = sourceDigests(modelDir);
  if (existsSync(manifestPath) && existsSync(join(dir, staticVectorsFile))) {
    const parsed = staticManifestSchema.safeParse(JSON.parse(readFileSync(manifestPath, 'utf8')));
    if (
      parsed.success &&
      JSON.stringify(parsed.data.settings) === JSON.stringify(settings) &&
      JSON.stringify(parsed.data.source) === JSON.stringify(source) &&
      sha256(readFileSync(join(dir, staticVectorsFile))) === parsed.data.sha256
    )
      return { skipped: true, manifest: parsed.data };
  }
  const tokenizerJson = JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8'));
  const vocabSize = Object.keys(tokenizerJson.model.vocab).length;
  const ids = ordinaryTokens(tokenizerJson);
  const raw = await tokenOutputs(modelDir, ids, settings.pooling);
  const rows = postProcess(raw, ids.length, settings);
  const dims = rows.length / ids.length;
  const table = new Float32Array(vocabSize * dims);
  ids.forEach((id, r) => table.set(rows.subarray(r * dims, (r + 1) * dims), id * dims));
  const bytes = new Uint8Array(table.buffer);
  const manifest: StaticManifest = { dims, vocabSize, tokens: ids.length, sha256: sha256(bytes), settings, source };
  mkdirSync(dir, { recursive: true });
  // Vectors first, manifest last, each renamed into place: a crash leaves no manifest naming other bytes.
  writeFileSync(join(dir, `${staticVectorsFile}.tmp`), bytes);
  renameSync(join(dir, `${staticVectorsFile}.tmp`), join(dir, staticVectorsFile));
  writeFileSync(`${manifestPath}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(`${manifestPath}.tmp`, manifestPath);
  return { skipped: false, manifest };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const modelDir = resolve(process.argv[2] ?? join(process.env.PLATFORM_DEV_DIR ?? '.dev', 'models', 'all-MiniLM-L6-v2'));
  const start = performance.now();
  const { skipped, manifest } = await distill(modelDir);
  if (!skipped)
    console.error(
      `[model] distilled static embeddings: ${manifest.tokens} tokens × ${manifest.dims} dims in ${((performance.now() - start) / 1000).toFixed(1)} s`,
    );
}
