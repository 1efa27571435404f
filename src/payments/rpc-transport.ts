import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createTransport, HttpRequestError, RpcRequestError, TimeoutError, type EIP1193RequestFn, type Transport } from 'viem';

export interface KeepAliveTransportOptions {
  /** Longest wait for one JSON-RPC answer (viem's `http` default: 10 s). */
  timeoutMs?: number;
  /** viem's retries of network failures and rate limits, as its `http` transport does them (default 3). */
  retryCount?: number;
  /** Largest answer read, bytes (viem's `http` default: 10 MiB). */
  maxResponseBytes?: number;
}

let nextId = 1;

/**
 * A viem transport for JSON-RPC over HTTP(S) on `node:http` with keep-alive sockets, one request per
 * round trip (no JSON-RPC batching). The same contract as viem's `http` transport (RPC errors as
 * RpcRequestError, HTTP and network failures as HttpRequestError, TimeoutError past the limit, the
 * same retry rules through createTransport), without fetch: viem's fetch path costs about 0.65 ms of
 * CPU per request against anvil (a Request, an AbortSignal, undici's writes and a TimeoutError built
 * up front), this about 0.25 ms, and the facilitator makes several requests per paid call.
 */
export function keepAliveHttp(url: string, options: KeepAliveTransportOptions = {}): Transport {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  if (!secure && target.protocol !== 'http:') throw new Error(`unsupported RPC URL scheme ${target.protocol}`);
  const send = secure ? httpsRequest : httpRequest;
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: 64, timeout: 60_000 }) : new HttpAgent({ keepAlive: true, maxSockets: 64, timeout: 60_000 });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  // Credentials in the URL become basic auth (as viem's http transport does); they never reach logs.
  if (target.username || target.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
  }
  const requestOptions = {
    protocol: target.protocol,
    hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: target.port || (secure ? 443 : 80),
    path: `${target.pathname}${target.search}`,
    method: 'POST',
    agent,
  };
  // Named in errors (and so in logs): without the path and query, where providers put API keys.
  const publicUrl = `${target.protocol}//${target.host}`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;

  /** One POST; `reused` says whether it went out on a kept-alive socket (a stale one may be closed under it). */
  const post = (body: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = send({ ...requestOptions, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            req.destroy(new Error(`JSON-RPC answer larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      });
      const timer = setTimeout(() => req.destroy(new TimedOut()), timeoutMs);
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(Object.assign(error, { reusedSocket: req.reusedSocket }));
      });
      req.end(body);
    });

  const request = async ({ method, params }: { method: string; params?: unknown }): Promise<unknown> => {
    const payload = { jsonrpc: '2.0', id: nextId++, method, params };
    const body = JSON.stringify(payload);
    let answer: { status: number; text: string };
    try {
      try {
        answer = await post(body);
      } catch (error) {
        // A kept-alive socket the server closed while idle fails at once, before anything was read:
        // sent again once on a fresh socket, as Node's documentation advises.
        if (!(error as { reusedSocket?: boolean }).reusedSocket || !isStaleSocket(error)) throw error;
        answer = await post(body);
      }
    } catch (error) {
      if (error instanceof TimedOut) throw new TimeoutError({ body: payload, url: publicUrl });
      throw new HttpRequestError({ body: payload, cause: error as Error, url: publicUrl });
    }
    let data: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    try {
      data = JSON.parse(answer.text || '{}');
    } catch {
      throw new HttpRequestError({ body: payload, details: answer.text.slice(0, 200), status: answer.status, url: publicUrl });
    }
    if (data.error && typeof data.error.code === 'number') throw new RpcRequestError({ body: payload, error: data.error, url: publicUrl });
    if (answer.status < 200 || answer.status >= 300) {
      throw new HttpRequestError({ body: payload, details: JSON.stringify(data.error ?? '') || `HTTP ${answer.status}`, status: answer.status, url: publicUrl });
    }
    return data.result;
  };
  return ({ retryCount }) =>
    createTransport({
      key: 'http',
      name: 'HTTP JSON-RPC (keep-alive)',
      type: 'http',
      retryCount: options.retryCount ?? retryCount ?? 3,
      timeout: timeoutMs,
      request: request as EIP1193RequestFn,
    });
}

class TimedOut extends Error {}

function isStaleSocket(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || (error as Error).message === 'socket hang up';
}
