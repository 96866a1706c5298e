// The OpenAI-compatible embedder against a local OpenAI-compatible HTTP server (the only kind of
// stand-in allowed: for a paid provider).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { OpenAIEmbedder } from '../../src/search/embedder.js';

let server: Server;
let url: string;
const seen: { model: string; input: string[]; dimensions: number; auth: string }[] = [];

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url !== '/v1/embeddings') return res.writeHead(404).end();
      const { model, input, dimensions } = JSON.parse(body) as { model: string; input: string[]; dimensions: number };
      seen.push({ model, input, dimensions, auth: req.headers.authorization ?? '' });
      const size = model === 'wrong-size' ? dimensions + 1 : dimensions;
      // Answered out of order, with unnormalised vectors: the client must sort and normalise.
      const data = input
        .map((text, index) => ({
          object: 'embedding',
          index,
          embedding: Array.from({ length: size }, (_, j) => (j === text.length % size ? 3 : 0)),
        }))
        .reverse();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data, model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});
after(() => new Promise((r) => server.close(r)));

describe('OpenAI-compatible embedder', () => {
  it('sends model, dimensions and key, and returns unit vectors in input order', async () => {
    const embedder = new OpenAIEmbedder('text-embedding-3-small', 8, { baseURL: url, apiKey: 'sk-test' });
    const [a, bb] = await embedder.embed(['a', 'bb']);
    assert.deepEqual(seen.at(-1), { model: 'text-embedding-3-small', input: ['a', 'bb'], dimensions: 8, auth: 'Bearer sk-test' });
    assert.equal(a![1], 1, 'the first input, normalised');
    assert.equal(bb![2], 1, 'the second input, normalised');
    assert.equal(embedder.id, 'openai:text-embedding-3-small:8');
  });

  it('refuses vectors of the wrong size', async () => {
    const embedder = new OpenAIEmbedder('wrong-size', 8, { baseURL: url });
    await assert.rejects(() => embedder.embed(['x']), /9 dimensions, expected 8/);
  });
});
