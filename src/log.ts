import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may carry credentials. pino removes them before a line is written, so a payment
 * signature, a private key or a bearer token never reaches a log even if a caller logs a whole object.
 */
const REDACT_PATHS = [
  'privateKey',
  '*.privateKey',
  'buyerPrivateKey',
  '*.buyerPrivateKey',
  'signature',
  '*.signature',
  'payload.signature',
  'headers.authorization',
  'headers["payment-signature"]',
  'headers["x-payment"]',
  'req.headers.authorization',
  'req.headers["payment-signature"]',
  'req.headers["x-payment"]',
  'authorization',
  'assertion',
  'access_token',
  'databaseUrl',
  'facilitatorKey',
  'adminToken',
  '*.facilitatorKey',
];

export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'percall' } }, destination);
}

/**
 * Error name and message only, never whole objects (they may echo request data), and with URLs
 * removed: RPC and facilitator URLs often carry API keys.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  return `${error.name}: ${error.message}`.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, '[url]').slice(0, 300);
}
