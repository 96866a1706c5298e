// Document and query vectors for the benches, cached under the dev directory by embedder and texts:
// the benches (search quality, indexing lag, throughput) reuse what another one embedded.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from '../src/search/embedder.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const devDir = resolve(repoRoot, process.env.PLATFORM_DEV_DIR ?? '.dev');

export async function cachedEmbeddings(embedder: Embedder, texts: string[], batch = 64): Promise<Float32Array[]> {
  const key = createHash('sha256').update(embedder.id).update(JSON.stringify(texts)).digest('hex').slice(0, 16);
  const file = resolve(devDir, 'bench-cache', `${embedder.id}-${key}.f32`);
  const dims = embedder.dimensions;
  if (existsSync(file)) {
    const all = new Float32Array(new Uint8Array(readFileSync(file)).buffer);
    if (all.length === texts.length * dims) return texts.map((_, i) => all.slice(i * dims, (i + 1) * dims));
  }
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += batch) out.push(...(await embedder.embed(texts.slice(i, i + batch))));
  mkdirSync(dirname(file), { recursive: true });
  const all = new Float32Array(texts.length * dims);
  out.forEach((v, i) => all.set(v, i * dims));
  writeFileSync(file, Buffer.from(all.buffer));
  return out;
}
