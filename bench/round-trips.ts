// The storage calls of one REST create and one get, in order of count (a profile, not a benchmark):
// read from the platform's own storage metrics (platform_storage_operations), before and after each request.
import { storageOperations } from '../src/observability/metrics.js';
import { benchPlatform } from './platform.js';

async function counts(): Promise<Map<string, number>> {
  const { values } = await storageOperations.get();
  return new Map(values.map((v) => [`${v.labels.collection}.${v.labels.operation}`, v.value]));
}

async function calls(request: () => Promise<unknown>): Promise<string> {
  const before = await counts();
  await request();
  const after = await counts();
  const made = [...after].map(([k, n]) => [k, n - (before.get(k) ?? 0)] as const).filter(([, n]) => n > 0);
  const total = made.reduce((sum, [, n]) => sum + n, 0);
  return `${total} calls: ${made.map(([k, n]) => (n > 1 ? `${k} ×${n}` : k)).join(', ')}`;
}

async function main(): Promise<void> {
  // No worker: its calls (events, indexing) would be counted with the request's.
  const bench = await benchPlatform('bench-trips', { EMBEDDINGS_PROVIDER: 'hashing' }, { worker: false });
  const { url, headers } = bench;
  try {
    const ws = await (await fetch(`${url}/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: 'p' }) })).json();
    for (let i = 0; i < 3; i++) {
      let id = '';
      const body = JSON.stringify({ title: `x${i}`, content_type: 'text/plain', content: 'hello', collection_id: ws.id });
      console.log(
        'create',
        await calls(async () => {
          id = (await (await fetch(`${url}/artifacts`, { method: 'POST', headers, body })).json()).id;
          await bench.services.eventWorkflows.flush(); // the relay behind the request, counted with it
        }),
      );
      console.log('get   ', await calls(async () => (await fetch(`${url}/artifacts/${id}`, { headers })).json()));
    }
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
