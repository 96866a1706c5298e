import { startPlatform } from './scale-platform.js';
import { must } from './mixed.js';
const size = 100000;
const p = await startPlatform('lean', size, 20000);
console.log('started', p.startSeconds);
const walk = async (label: string) => {
  let cursor: string | null = null; const times: number[] = [];
  for (let page = 1; page < 60; page++) {
    const t = performance.now();
    const r = await must(p.client, 'GET', `/artifacts?collection_id=${p.seed!.largeWorkspaceId}&limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    times.push(performance.now() - t); cursor = r.next_cursor;
  }
  times.sort((a, b) => a - b); console.log(label, 'p50', times[30]!.toFixed(1), 'max', times.at(-1)!.toFixed(1), new Date().toISOString());
};
const { Session } = await import('node:inspector/promises');
const s = new Session(); s.connect(); await s.post('Profiler.enable'); await s.post('Profiler.start');
await walk('walk 0'); await walk('walk 1');
const { profile } = await s.post('Profiler.stop');
(await import('node:fs')).writeFileSync('/tmp/walk.cpuprofile', JSON.stringify(profile));
for (let i = 2; i < 5; i++) { await walk(`walk ${i}`); await new Promise((r) => setTimeout(r, 5000)); }
await p.close(); process.exit(0);
