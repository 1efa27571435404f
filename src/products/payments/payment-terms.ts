/**
 * A seller's payment terms as b402_preflight and mpp_admission_gate read them: one unpaid request
 * through the safe fetcher (never paying it), the x402 requirements in it (v1 body or v2
 * PAYMENT-REQUIRED, judged by x402-endpoint-verify's judge) and its MPP challenges
 * (`WWW-Authenticate: Payment`, parsed by mppx), each checked.
 */
import type { z } from 'zod';
import type { Challenge } from 'mppx';
import { isAddress } from 'viem';
import { isAddress as isSolanaAddress } from '@solana/kit';
import { fetchFailure, type ProductContext } from '../kit/index.ts';
import { SafeFetchError, type SafeResponse } from '../../providers/safe-fetch.ts';
import type { mppChallengeSchema } from './mpp-challenge-schema.ts';

/** One unpaid request: any HTTP answer is returned; no answer is a problem (422 for the caller's target, 502/504 else), never charged. */
export async function probeUnpaid(url: string, method: string, ctx: ProductContext, field = 'url'): Promise<SafeResponse> {
  try {
    return await ctx.fetch(url, { method, ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) });
  } catch (error) {
    if (error instanceof SafeFetchError) throw fetchFailure(error, field);
    throw error;
  }
}

/** MPP intents of the spec (paymentauth.org). */
const INTENTS = new Set(['charge', 'session']);
/** `sha-256=:<base64>:` (RFC 9530), the request digest a challenge may bind. */
const DIGEST = /^sha-(256|512)=:[A-Za-z0-9+/]+={0,2}:$/;

export type MppChallengeCheck = z.infer<typeof mppChallengeSchema>;

/** Every `Payment` challenge of the answer, checked against the MPP spec; `[]` when it has none. */
export async function mppChallenges(response: SafeResponse, now: Date): Promise<MppChallengeCheck[]> {
  const header = response.headers['www-authenticate'] ?? '';
  if (!/(^|,)\s*Payment\s/i.test(header)) return [];
  // Loaded by the first answer that has a challenge: mppx is about 6 MB (README, "Memory").
  const { Challenge } = await import('mppx');
  let parsed: Challenge.Challenge[];
  try {
    parsed = Challenge.deserializeList(header) as Challenge.Challenge[];
  } catch (error) {
    return [{ id: null, method: null, intent: null, realm: null, expires: null, amount_atomic: null, currency: null, recipient: null, chain_id: null, valid: false, problems: [`WWW-Authenticate: Payment does not parse (${(error as Error).message.slice(0, 200)})`] }];
  }
  return parsed.map((c) => checkChallenge(c, now));
}

function checkChallenge(c: Challenge.Challenge, now: Date): MppChallengeCheck {
  const problems: string[] = [];
  const request = (c.request ?? {}) as { amount?: unknown; currency?: unknown; recipient?: unknown; methodDetails?: { chainId?: unknown } };
  const amount = typeof request.amount === 'string' || typeof request.amount === 'number' ? String(request.amount) : null;
  const chainId = typeof request.methodDetails?.chainId === 'number' ? request.methodDetails.chainId : null;
  if (!c.id) problems.push('id is missing');
  if (!c.realm) problems.push('realm is missing');
  if (!INTENTS.has(c.intent)) problems.push(`intent ${c.intent} is not charge or session`);
  if (!c.method) problems.push('method is missing');
  if (c.expires === undefined) problems.push('expires is missing: the challenge never lapses');
  else if (Number.isNaN(Date.parse(c.expires))) problems.push(`expires ${c.expires} is not an RFC 3339 time`);
  else if (Date.parse(c.expires) <= now.getTime()) problems.push(`expired at ${c.expires}`);
  if (c.digest !== undefined && !DIGEST.test(c.digest)) problems.push('digest is not a sha-256=:…: request digest');
  if (c.intent === 'charge' && (amount === null || !/^[1-9]\d*$/.test(amount))) problems.push(`request.amount ${String(amount)} is not a positive integer of atomic units`);
  const recipient = typeof request.recipient === 'string' ? request.recipient : null;
  if (recipient === null) problems.push('request.recipient is missing');
  else if (!isAddress(recipient) && !isSolanaAddress(recipient)) problems.push(`request.recipient ${recipient} is not an address`);
  return {
    id: c.id || null,
    method: c.method || null,
    intent: c.intent || null,
    realm: c.realm || null,
    expires: c.expires ?? null,
    amount_atomic: amount,
    currency: typeof request.currency === 'string' ? request.currency : null,
    recipient,
    chain_id: chainId,
    valid: problems.length === 0,
    problems,
  };
}
