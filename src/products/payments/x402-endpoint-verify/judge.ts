/**
 * Judges an x402 challenge: what x402-endpoint-verify returns, and what agent-readiness-audit
 * checks on a listed paid route.
 */
import { z } from 'zod';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import type { SafeResponse } from '../../../providers/safe-fetch.ts';

export const finding = z.object({
  severity: z.enum(['error', 'warning', 'info']),
  check: z.string().describe('What was checked, e.g. "accepts.0.network"'),
  message: z.string(),
  fix: z.string().optional(),
});
export type Finding = z.infer<typeof finding>;

export const challengeVerdict = z.object({
  status: z.int().describe('HTTP status of the unpaid answer'),
  x402_version: z.int().nullable(),
  valid: z.boolean().describe('No finding of severity error'),
  accepts: z.array(z.object({ scheme: z.string(), network: z.string(), amount: z.string(), asset: z.string(), pay_to: z.string() })),
  bazaar: z.boolean().describe('Whether a valid extensions.bazaar discovery block is declared'),
  findings: z.array(finding),
});
export type ChallengeVerdict = z.infer<typeof challengeVerdict>;

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;

export function judgeChallenge(response: SafeResponse): ChallengeVerdict {
  const findings: Finding[] = [];
  const add = (severity: Finding['severity'], check: string, message: string, fix?: string) => findings.push({ severity, check, message, ...(fix ? { fix } : {}) });
  let required: PaymentRequired | undefined;
  let version: number | null = null;
  if (response.status !== 402) add('error', 'status', `answered ${response.status}, not 402, without payment`, 'answer unpaid requests with 402 and the payment requirements');
  const header = response.headers['payment-required'];
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    body = undefined;
  }
  if (header) {
    try {
      required = decodePaymentRequiredHeader(header);
      version = required.x402Version;
    } catch {
      add('error', 'payment-required-header', 'PAYMENT-REQUIRED is not base64 JSON', 'send base64(JSON.stringify(PaymentRequired))');
    }
    if (required && JSON.stringify(body) !== JSON.stringify(required)) add('warning', 'body', 'the JSON body differs from the PAYMENT-REQUIRED header', 'send the same PaymentRequired object as the body');
  } else if (body && typeof body === 'object' && (body as { x402Version?: unknown }).x402Version === 1) {
    version = 1;
    required = body as PaymentRequired;
    add('info', 'version', 'x402 v1 challenge (JSON body, no PAYMENT-REQUIRED header)', 'x402 v2 adds the PAYMENT-REQUIRED header');
  } else if (response.status === 402) {
    add('error', 'payment-required-header', 'no PAYMENT-REQUIRED header and no x402 body', 'add the x402 v2 PAYMENT-REQUIRED header');
  }
  const accepts: ChallengeVerdict['accepts'] = [];
  if (required) {
    if (version !== 1 && version !== 2) add('error', 'version', `unknown x402Version ${String(version)}`);
    if (version === 2 && !required.resource?.url) add('error', 'resource', 'resource.url is missing');
    if (!Array.isArray(required.accepts) || required.accepts.length === 0) add('error', 'accepts', 'accepts is empty', 'offer at least one payment option');
    for (const [i, a] of (required.accepts ?? []).entries()) {
      const amount = String((a as { amount?: unknown; maxAmountRequired?: unknown }).amount ?? (a as { maxAmountRequired?: unknown }).maxAmountRequired ?? '');
      const payTo = String(a.payTo ?? '');
      accepts.push({ scheme: String(a.scheme ?? ''), network: String(a.network ?? ''), amount, asset: String(a.asset ?? ''), pay_to: payTo });
      if (!a.scheme) add('error', `accepts.${i}.scheme`, 'scheme is missing');
      if (version === 2 && !CAIP2.test(String(a.network))) add('error', `accepts.${i}.network`, `network ${String(a.network)} is not a CAIP-2 id`, 'use e.g. eip155:8453');
      if (!/^[1-9][0-9]*$/.test(amount)) add('error', `accepts.${i}.amount`, `amount ${amount} is not a positive integer of atomic units`);
      if (!a.asset) add('error', `accepts.${i}.asset`, 'asset is missing');
      if (!payTo) add('error', `accepts.${i}.payTo`, 'payTo is missing');
      if (!(Number(a.maxTimeoutSeconds) > 0)) add('warning', `accepts.${i}.maxTimeoutSeconds`, 'maxTimeoutSeconds is missing or not positive');
      if (String(a.network).startsWith('eip155:') && a.scheme === 'exact' && !(a.extra as { name?: unknown } | undefined)?.name) {
        add('warning', `accepts.${i}.extra`, 'extra.name/version (the token EIP-712 domain) are missing', 'clients need them to sign EIP-3009');
      }
    }
  }
  const bazaarBlock = (required?.extensions as Record<string, unknown> | undefined)?.bazaar;
  const bazaar = bazaarBlock !== undefined && withoutWarnings(() => validateDiscoveryExtension(bazaarBlock as never).valid);
  if (required && !bazaar) add('warning', 'bazaar', bazaarBlock ? 'extensions.bazaar is not valid' : 'no extensions.bazaar discovery block', 'declare the input schema and an output example for discovery');
  if (response.status === 402 && !/no-store/.test(response.headers['cache-control'] ?? '')) add('warning', 'cache-control', 'the 402 may be cached', 'send Cache-Control: no-store');
  return { status: response.status, x402_version: version, valid: !findings.some((f) => f.severity === 'error'), accepts, bazaar, findings };
}

/**
 * The SDK's validator compiles with ajv's default logger, whose notice about each unknown format would
 * reach the log on every call. It runs synchronously, so muting console.warn around it mutes only it.
 */
function withoutWarnings<T>(fn: () => T): T {
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    return fn();
  } finally {
    console.warn = warn;
  }
}
