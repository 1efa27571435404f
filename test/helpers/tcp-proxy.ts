import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * What the proxy does with connections:
 * - `forward`: relays bytes both ways to the target;
 * - `refuse`: nothing listens on the port, so a connection attempt fails at once (ECONNREFUSED);
 * - `blackhole`: connections are accepted and held, and nothing is relayed either way (a hung peer).
 */
export type ProxyMode = 'forward' | 'refuse' | 'blackhole';

/** `up`: client to target; `down`: target to client. */
export type Direction = 'up' | 'down';

/**
 * Sees every chunk before it is relayed. Returning `'drop'` swallows the chunk (the tap may also
 * change the proxy's mode, e.g. refuse from the next byte on).
 */
export type Tap = (direction: Direction, chunk: Buffer) => 'drop' | void;

export interface TcpProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  /** The proxy's address with a scheme, always on 127.0.0.1. */
  url(scheme?: string): string;
  /** Relays new connections again (listening again after `refuse`). */
  forward(): Promise<void>;
  /** Stops listening and cuts every open connection: the target looks down. */
  refuse(): Promise<void>;
  /** Accepts but never answers; open connections stall too (and are cut with `cut: true`). */
  blackhole(options?: { cut?: boolean }): Promise<void>;
  /** Cuts every open connection, whatever the mode. */
  cut(): void;
  tap: Tap | undefined;
  /** Open client connections (relayed or held). */
  readonly connections: number;
  close(): Promise<void>;
}

/** A loopback TCP proxy to `target` (host:port on loopback) whose behaviour a test switches. */
export async function startTcpProxy(target: { host: string; port: number } | string): Promise<TcpProxy> {
  const to = typeof target === 'string' ? hostPort(target) : target;
  if (!isLoopback(to.host)) throw new Error(`tcp proxy targets loopback only, not ${to.host}`);
  const sockets = new Set<Socket>();
  let mode: ProxyMode = 'forward';
  let server: Server | undefined;
  let port = 0;

  const onConnection = (client: Socket) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (mode === 'blackhole') {
      // Held open, read and discarded: the peer waits for an answer that never comes.
      client.on('data', () => undefined);
      return;
    }
    const upstream = connect(to.port, to.host);
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    const relay = (direction: Direction, into: Socket) => (chunk: Buffer) => {
      if (mode === 'blackhole') return;
      if (proxy.tap?.(direction, chunk) === 'drop') return;
      if (!into.destroyed) into.write(chunk);
    };
    client.on('data', relay('up', upstream));
    upstream.on('data', relay('down', client));
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer(onConnection);
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });

  const stopListening = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      if (!s) return resolve();
      // close() stops accepting at once; its callback waits for open connections, which are cut next.
      s.close(() => resolve());
      cutAll();
    });

  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };

  const proxy: TcpProxy = {
    get port() {
      return port;
    },
    get mode() {
      return mode;
    },
    get connections() {
      return sockets.size;
    },
    tap: undefined,
    url: (scheme = 'http') => `${scheme}://127.0.0.1:${port}`,
    forward: async () => {
      // Connections held or stalled by a blackhole are of no use any more (their bytes were dropped).
      if (mode === 'blackhole') cutAll();
      mode = 'forward';
      if (!server) await listen();
    },
    refuse: async () => {
      mode = 'refuse';
      await stopListening();
    },
    blackhole: async (options = {}) => {
      mode = 'blackhole';
      if (options.cut) cutAll();
      if (!server) await listen();
    },
    cut: cutAll,
    close: async () => {
      mode = 'refuse';
      proxy.tap = undefined;
      await stopListening();
    },
  };
  await listen();
  return proxy;
}

function hostPort(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
}

function isLoopback(host: string): boolean {
  return /^127\.\d+\.\d+\.\d+$/.test(host) || host === 'localhost' || host === '[::1]' || host === '::1';
}
