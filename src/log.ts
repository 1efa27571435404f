import { AsyncLocalStorage } from 'node:async_hooks';
import { format } from 'node:util';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may carry credentials. pino removes them before a line is written, so a payment
 * signature, a private key, an API key or a bearer token never reaches a log even if a caller logs
 * a whole object (config, request headers, a payment payload nested in an entry).
 */
const SECRET_FIELDS = [
  'privateKey',
  'buyerPrivateKey',
  'buyerSecretKey',
  'secretKey',
  'feePayerKey',
  'feePayerSecretKey',
  'facilitatorKey',
  'apiKey',
  'adminToken',
  'databaseUrl',
  // RPC endpoints often carry an API key in their URL.
  'evmRpcUrl',
  'evmRpcUrls',
  'rpcUrls',
  'connectionString',
  'signature',
  'authorization',
  'assertion',
  'access_token',
  'refresh_token',
  'credential',
];
const REDACT_PATHS = [
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
  'headers["payment-signature"]',
  'headers["x-payment"]',
  'headers["sign-in-with-x"]',
  'headers.cookie',
  '*.headers["payment-signature"]',
  '*.headers["x-payment"]',
  '*.headers["sign-in-with-x"]',
  '*.headers.cookie',
  // A payment payload's signed part, at any depth a caller may log it.
  'payload.payload',
  '*.payload.payload',
  '*.*.payload.payload',
];

/** The request a log line belongs to, carried across awaits (see withRequestId). */
const requestScope = new AsyncLocalStorage<string>();

/** Runs `fn` with every log line it writes, at any depth of awaits, tagged with `reqId`. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return requestScope.run(requestId, fn);
}

export function currentRequestId(): string | undefined {
  return requestScope.getStore();
}

export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'percall' },
      mixin: () => {
        const reqId = requestScope.getStore();
        return reqId ? { reqId } : {};
      },
    },
    destination,
  );
}

/** URLs (RPC and facilitator URLs often carry API keys) and long opaque strings (signatures, keys) removed. */
function scrub(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, '[url]').replace(/(0x)?[A-Za-z0-9+/=_-]{64,}/g, '[data]');
}

/**
 * Error name and message only, never whole objects (they may echo request data), and with URLs
 * and long opaque strings removed.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  return scrub(`${error.name}: ${error.message}`).slice(0, 300);
}

/**
 * Libraries that write to the console (the x402 SDK warns and errors there) go through the logger
 * instead: one format, the request id, and the same scrubbing as errors. For the service process;
 * CLI commands keep their console.
 */
export function routeConsoleToLogger(log: Logger): void {
  console.error = (...args: unknown[]) => log.error({ source: 'console' }, scrub(format(...args)).slice(0, 2000));
  console.warn = (...args: unknown[]) => log.warn({ source: 'console' }, scrub(format(...args)).slice(0, 2000));
}
