// The requests a server is answering, so that a draining server can tell its keep-alive clients to go.
import type { Server, ServerResponse } from 'node:http';

export interface InFlight {
  readonly size: number;
  /** From now on every response ends its connection (`Connection: close`), and connections left idle close. */
  closeAfterResponse(): void;
}

export function trackInFlight(server: Server): InFlight {
  const open = new Set<ServerResponse>();
  let closing = false;
  const ending = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.on('request', (_req, res: ServerResponse) => {
    open.add(res);
    if (closing) ending(res);
    res.once('close', () => {
      open.delete(res);
      // A response whose headers went out before the drain leaves a keep-alive connection behind: close it now.
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  return {
    get size() {
      return open.size;
    },
    closeAfterResponse() {
      closing = true;
      open.forEach(ending);
    },
  };
}
