// Counts the MongoDB commands and Temporal calls of one REST create and one get, sequentially (a profile, not a benchmark).
import { benchPlatform } from './platform.js';

async function main(): Promise<void> {
  const bench = await benchPlatform('bench-trips', { EMBEDDINGS_PROVIDER: 'hashing' });
  const { url, headers, services } = bench;
  const seen: string[] = [];
  services.mongo.on('commandStarted', (e) =>
    seen.push(`${e.commandName} ${String((e.command as Record<string, unknown>)[e.commandName])}`),
  );
  try {
    const ws = await (await fetch(`${url}/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: 'p' }) })).json();
    for (let i = 0; i < 3; i++) {
      seen.length = 0;
      let t = performance.now();
      const created = await (
        await fetch(`${url}/artifacts`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ title: 'x', content_type: 'text/plain', content: 'hello', collection_id: ws.id }),
        })
      ).json();
      console.log(`create ${(performance.now() - t).toFixed(1)} ms:`, seen.join(' | '));
      seen.length = 0;
      t = performance.now();
      await (await fetch(`${url}/artifacts/${created.id}`, { headers })).json();
      console.log(`get ${(performance.now() - t).toFixed(1)} ms:`, seen.join(' | '));
    }
  } finally {
    await bench.close();
  }
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
