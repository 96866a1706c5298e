// The view side of MCP Apps (SEP-1865, SPEC §4.7) for the platform's own artifact viewer: JSON-RPC over
// postMessage with the host, by hand (the ext-apps App class would bring the MCP protocol code and
// zod into a page that needs four messages). ui/initialize with the protocol version, then
// ui/notifications/initialized; the host's notifications (tool input, tool result) go to `onNotification`.

/** The MCP Apps handshake version the platform's viewers speak (SPEC §4.7). */
export const appProtocolVersion = '2026-01-26';

interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface HostSession {
  /** What the host said it can do (`hostCapabilities` of the ui/initialize result). */
  capabilities: Record<string, unknown>;
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  notify(method: string, params: Record<string, unknown>): void;
}

/** Starts the handshake; resolves once the viewer has told the host it is initialized. */
export function connectToHost(
  appInfo: { name: string; version: string },
  onNotification: (method: string, params: Record<string, unknown>) => void,
): Promise<HostSession> {
  const pending = new Map<number | string, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  const send = (message: Omit<Message, 'jsonrpc'>) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  window.addEventListener('message', (event: MessageEvent) => {
    const message = event.data as Message | undefined;
    if (event.source !== window.parent || !message || message.jsonrpc !== '2.0') return;
    if (message.method === undefined && message.id !== undefined) {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiting?.reject(new Error(message.error.message));
      else waiting?.resolve(message.result ?? {});
      return;
    }
    if (message.method === 'ui/resource-teardown' && message.id !== undefined) return send({ id: message.id, result: {} });
    if (message.method && message.id !== undefined) return send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
    if (message.method) onNotification(message.method, message.params ?? {});
  });
  return request('ui/initialize', {
    protocolVersion: appProtocolVersion,
    appInfo,
    appCapabilities: { availableDisplayModes: ['inline'] },
  }).then((result) => {
    send({ method: 'ui/notifications/initialized', params: {} });
    return {
      capabilities: (result.hostCapabilities as Record<string, unknown> | undefined) ?? {},
      request,
      notify: (method, params) => send({ method, params }),
    };
  });
}
