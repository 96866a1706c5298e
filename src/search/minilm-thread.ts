// The MiniLM inference thread (search/minilm.ts): onnxruntime-node's `run` holds the JavaScript thread
// for the whole inference, so the embedder runs it here, off the worker's event loop. Requests are
// handled one at a time, in order; each answer carries its request's id.
import { parentPort, workerData } from 'node:worker_threads';
import { createSession, inferBatch, type SessionSettings } from './minilm-inference.js';

export interface InferenceRequest {
  id: number;
  /** Token ids per text, one inference call per inner list. */
  batches: number[][][];
}

export type InferenceAnswer = { id: number; vectors: Float32Array[] } | { id: number; error: string };

export interface InferenceThreadData {
  onnxPath: string;
  settings: SessionSettings;
  dimensions: number;
}

const port = parentPort;
if (port) {
  const { onnxPath, settings, dimensions } = workerData as InferenceThreadData;
  const session = createSession(onnxPath, settings);
  let chain: Promise<void> = Promise.resolve();
  port.on('message', (req: InferenceRequest) => {
    chain = chain.then(async () => {
      try {
        const vectors: Float32Array[] = [];
        for (const batch of req.batches) vectors.push(...(await inferBatch(await session, batch, dimensions)));
        const answer: InferenceAnswer = { id: req.id, vectors };
        port.postMessage(
          answer,
          vectors.map((v) => v.buffer as ArrayBuffer),
        );
      } catch (err) {
        port.postMessage({ id: req.id, error: (err as Error).message } satisfies InferenceAnswer);
      }
    });
  });
}
