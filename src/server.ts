import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

export interface Listener {
  /** `http://host:port` as actually bound (port 0 resolves to a real port). */
  url: string;
  port: number;
  /** Route requests to this handler; set once the app is built (the URL must be known first). */
  setHandler(handler: Handler): void;
  /**
   * Stops accepting connections and waits for in-flight requests to be answered, at most `graceMs`;
   * connections still open then are cut (a paid response cut off this way stays redeemable).
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Binds the HTTP listener before the app exists, so discovery documents can name the real port
 * when PORT=0. Until a handler is set, requests get 503.
 */
/** A fetch handler; `env` carries the Node request and socket (the client address is read from it). */
type Handler = (request: Request, env?: unknown) => Response | Promise<Response>;

export async function listen(port: number, host: string): Promise<Listener> {
  let handler: Handler | undefined;
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve(
      {
        fetch: (request, env) => (handler ? handler(request, env) : new Response('starting', { status: 503, headers: { 'retry-after': '1' } })),
        port,
        hostname: host,
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${displayHost}:${address.port}`,
    port: address.port,
    setHandler: (h) => {
      handler = h;
    },
    close: (graceMs = 0) =>
      new Promise((resolve) => {
        const connections = server as unknown as { closeIdleConnections(): void; closeAllConnections(): void };
        // Requests already running keep their connection until answered; idle keep-alive sockets go
        // now, and each busy one as soon as its response is written (Node answers it with close).
        const idle = setInterval(() => connections.closeIdleConnections(), 50);
        const cut = setTimeout(() => connections.closeAllConnections(), graceMs);
        server.close(() => {
          clearInterval(idle);
          clearTimeout(cut);
          resolve();
        });
        connections.closeIdleConnections();
      }),
  };
}
