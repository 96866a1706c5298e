// The platform's RTMP ingest point for one stream session: a TCP listener on a port of the configured
// range, where publishers connect. Each publish is a "take": ffmpeg listens on a loopback port of its
// own, the gate connects to it at once (ffmpeg's listen mode accepts one connection and closes its
// listener, so from then on it reads only what the gate forwards; had anything else taken that one
// connection, the gate's own would fail or be reset, and the take is torn down), and a publisher's
// bytes reach it only through the PublishGate, which checks the stream key.
import net from 'node:net';
import { PublishGate } from './rtmp-publish-gate.js';

/** How long a publisher has from connecting to an accepted publish. */
const publishWithinMs = 10_000;

/** Listens on the first free port of [from, to] at `host`; throws when every port is taken. */
export async function listenInRange(host: string, from: number, to: number): Promise<net.Server> {
  for (let port = from; port <= to; port++) {
    const server = net.createServer({ pauseOnConnect: true });
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen({ port, host, exclusive: true }, () => resolve(true));
    });
    if (ok) {
      holdConnections(server);
      return server;
    }
    server.close();
  }
  throw new Error(`no free port in ${from}-${to} on ${host} for RTMP ingest`);
}

/** A free loopback port for ffmpeg to listen on (picked, then handed over: ffmpeg binds it next). */
export async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1' }, () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** Connects to ffmpeg's listener, retrying while it starts; null when it never answers in `withinMs`. */
export async function connectWhenListening(port: number, withinMs: number, signal: AbortSignal): Promise<net.Socket | null> {
  const until = Date.now() + withinMs;
  while (Date.now() < until && !signal.aborted) {
    const socket = await new Promise<net.Socket | null>((resolve) => {
      const s = net.connect({ port, host: '127.0.0.1' });
      s.once('connect', () => resolve(s));
      s.once('error', () => {
        s.destroy();
        resolve(null);
      });
    });
    if (socket) return socket;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

/** Connections waiting for the recorder (it is starting an ffmpeg), and whether a publisher is being served. */
interface Waiting {
  queue: net.Socket[];
  busy: boolean;
  taker: ((socket: net.Socket) => void) | null;
}
const waiting = new WeakMap<net.Server, Waiting>();
/** At most this many publishers wait their turn; each waits at most `publishWithinMs`. */
const maxQueued = 4;

/**
 * Holds connections for `nextConnection`: a publisher that connects while the recorder starts its
 * ffmpeg waits for it; one that connects while another publisher is served is disconnected.
 */
function holdConnections(server: net.Server): void {
  const w: Waiting = { queue: [], busy: false, taker: null };
  waiting.set(server, w);
  server.on('connection', (socket: net.Socket) => {
    socket.on('error', () => {});
    if (w.taker) {
      const take = w.taker;
      w.taker = null;
      return take(socket);
    }
    if (w.busy || w.queue.length >= maxQueued) return void socket.destroy();
    w.queue.push(socket);
    const drop = () => {
      w.queue = w.queue.filter((s) => s !== socket);
      socket.destroy();
    };
    setTimeout(() => w.queue.includes(socket) && drop(), publishWithinMs).unref();
    socket.once('close', () => (w.queue = w.queue.filter((s) => s !== socket)));
  });
}

/** Marks the listener as serving a publisher (others are turned away) or free again. */
export function setServing(server: net.Server, busy: boolean): void {
  const w = waiting.get(server);
  if (!w) return;
  w.busy = busy;
  if (busy) for (const s of w.queue.splice(0)) s.destroy();
}

/** The next connection to `server` (a waiting one first), or null when `signal` ends the wait. */
export async function nextConnection(server: net.Server, signal: AbortSignal): Promise<net.Socket | null> {
  const w = waiting.get(server);
  if (!w) throw new Error('nextConnection: a listener from listenInRange');
  const queued = w.queue.shift();
  if (queued) return queued;
  return new Promise((resolve) => {
    const onAbort = () => {
      w.taker = null;
      resolve(null);
    };
    if (signal.aborted) return resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    w.taker = (socket) => {
      signal.removeEventListener('abort', onAbort);
      resolve(socket);
    };
  });
}

export type GateOutcome = 'accepted' | 'aborted' | 'upstream-closed' | { reason: string };

/**
 * Runs the gate on one client until its publish is accepted (then pipes both ways, each side's end
 * ending the other) or refused. `upstream` is ffmpeg's one connection.
 */
export function gate(client: net.Socket, key: string, upstream: net.Socket, signal: AbortSignal): Promise<GateOutcome> {
  return new Promise((resolve) => {
    const check = new PublishGate(key);
    let settled = false;
    const finish = (result: GateOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      client.off('data', onData);
      upstream.off('data', toClient);
      if (result === 'accepted') {
        client.pipe(upstream);
        upstream.pipe(client);
        client.once('close', () => upstream.end());
        upstream.once('close', () => client.destroy());
        client.resume();
      }
      resolve(result);
    };
    const onAbort = () => finish('aborted');
    const timer = setTimeout(() => finish({ reason: 'no publish in time' }), publishWithinMs);
    const toClient = (data: Buffer) => client.write(data);
    const onData = (data: Buffer) => {
      const { forward, verdict } = check.push(data);
      if (verdict.state === 'refused') return finish({ reason: verdict.reason });
      if (forward.length) upstream.write(forward);
      if (verdict.state === 'accepted') {
        client.pause();
        finish('accepted');
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    client.on('data', onData);
    client.once('close', () => finish({ reason: 'disconnected before publishing' }));
    client.on('error', () => {}); // its 'close' follows
    upstream.on('data', toClient);
    upstream.once('close', () => finish('upstream-closed'));
    client.resume();
  });
}
