// A TCP proxy on loopback between a client and a server, whose connections a test can cut: a network
// that drops (a laptop's Wi-Fi), with every byte otherwise passed through unchanged.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  url: string;
  /** Drops every open connection and refuses new ones for `ms`. */
  cut(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let refusing = false;
  const server: Server = createServer((client) => {
    if (refusing) return client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    async cut(ms) {
      refusing = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
      await new Promise((r) => setTimeout(r, ms));
      refusing = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(() => r(undefined)));
    },
  };
}
