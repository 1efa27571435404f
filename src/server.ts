import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

export interface Listener {
  /** `http://host:port` as actually bound (port 0 resolves to a real port). */
  url: string;
  port: number;
  /** Route requests to this handler; set once the app is built (the URL must be known first). */
  setHandler(handler: Handler): void;
  close(): Promise<void>;
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
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets would hold close() open; they carry no in-flight work once we get here.
        (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      }),
  };
}
