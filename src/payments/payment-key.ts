import { createHash } from 'node:crypto';
import type { PaymentPayload } from '@x402/core/types';
import { canonicalJson } from '../canonical-json.ts';

/**
 * The identity of a signed payment, the replay guard's key. For EIP-3009 authorizations it is the
 * (network, token, payer, nonce) tuple the token contract itself enforces once; a payload re-encoded
 * or re-signed with the same nonce maps to the same key. Permit2 (`upto`) uses (network, owner, nonce),
 * which Permit2 enforces once. Other payload kinds (Solana transactions) hash the signed payload.
 */
export function paymentKey(payload: PaymentPayload): string {
  const { network, asset } = payload.accepted;
  const authorization = (payload.payload as { authorization?: { from?: unknown; nonce?: unknown } }).authorization;
  if (typeof authorization?.from === 'string' && typeof authorization.nonce === 'string') {
    return `eip3009:${network}:${asset.toLowerCase()}:${authorization.from.toLowerCase()}:${authorization.nonce.toLowerCase()}`;
  }
  // Permit2 nonces are unique per owner across tokens; an upto charge of 0 never spends one on chain,
  // so only this key stops the same authorization from buying a second response.
  const permit = (payload.payload as { permit2Authorization?: { from?: unknown; nonce?: unknown } }).permit2Authorization;
  if (typeof permit?.from === 'string' && typeof permit.nonce === 'string') {
    return `permit2:${network}:${permit.from.toLowerCase()}:${permit.nonce}`;
  }
  const digest = createHash('sha256').update(canonicalJson(payload.payload)).digest('hex');
  return `payload:${network}:${digest}`;
}

/** The EIP-3009 authorization a key names, or undefined for other payload kinds. */
export function parseEip3009Key(key: string): { network: string; asset: `0x${string}`; from: `0x${string}`; nonce: `0x${string}` } | undefined {
  const match = /^eip3009:([^:]+:[^:]+):(0x[0-9a-f]{40}):(0x[0-9a-f]{40}):(0x[0-9a-f]{64})$/.exec(key);
  if (!match) return undefined;
  return { network: match[1]!, asset: match[2] as `0x${string}`, from: match[3] as `0x${string}`, nonce: match[4] as `0x${string}` };
}

/** The Permit2 authorization (`upto`) a key names, or undefined for other payload kinds. */
export function parsePermit2Key(key: string): { network: string; owner: `0x${string}`; nonce: bigint } | undefined {
  const match = /^permit2:([^:]+:[^:]+):(0x[0-9a-f]{40}):(\d+)$/.exec(key);
  if (!match) return undefined;
  return { network: match[1]!, owner: match[2] as `0x${string}`, nonce: BigInt(match[3]!) };
}
