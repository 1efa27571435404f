import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A site served by the test on a loopback address (the fetcher reaches it only when loopback is allowed). */
export async function localSite(handler: RequestListener, host = '127.0.0.1'): Promise<{ url: string; server: Server; close(): void }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return { url: `http://${host}:${(server.address() as AddressInfo).port}`, server, close: () => server.close() };
}
