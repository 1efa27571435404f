import { createServer, type RequestListener, type Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

/** A site served by the test on a loopback address (the fetcher reaches it only when loopback is allowed). */
export async function localSite(handler: RequestListener, host = '127.0.0.1'): Promise<{ url: string; server: Server; close(): void }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return { url: `http://${host}:${(server.address() as AddressInfo).port}`, server, close: () => server.close() };
}

/**
 * A fetch-style app (a provider double, a seller, a facilitator) served on a loopback address (a free
 * port unless given); `close` also ends kept-alive connections, so it never waits on a client.
 */
export async function serveApp(app: { fetch: (request: Request) => Response | Promise<Response> }, port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      }),
  };
}
