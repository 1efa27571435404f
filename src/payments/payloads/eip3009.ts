import type { PaymentPayload } from '@x402/core/types';
import type { PayloadKind } from './kind.ts';

type Hex = `0x${string}`;

/** The EIP-3009 `transferWithAuthorization` an x402 `exact` EVM payload carries, if it does. */
function authorizationOf(payload: PaymentPayload): { from: string; nonce: string; validBefore?: unknown } | undefined {
  const authorization = (payload.payload as { authorization?: { from?: unknown; nonce?: unknown; validBefore?: unknown } }).authorization;
  if (typeof authorization?.from !== 'string' || typeof authorization.nonce !== 'string') return undefined;
  return { from: authorization.from, nonce: authorization.nonce, validBefore: authorization.validBefore };
}

/**
 * EIP-3009 authorizations: the key is the (network, token, payer, nonce) tuple the token contract
 * itself enforces once, so a payload re-encoded or re-signed with the same nonce maps to the same key.
 */
export const eip3009: PayloadKind = {
  name: 'eip3009',
  key(payload) {
    const authorization = authorizationOf(payload);
    if (!authorization) return undefined;
    const { network, asset } = payload.accepted;
    return `eip3009:${network}:${asset.toLowerCase()}:${authorization.from.toLowerCase()}:${authorization.nonce.toLowerCase()}`;
  },
  facts(payload) {
    const authorization = authorizationOf(payload);
    const validBefore = Number(authorization?.validBefore);
    return { payer: authorization?.from, validBefore: Number.isSafeInteger(validBefore) ? validBefore : undefined };
  },
};

/** The EIP-3009 authorization a key names, or undefined for other payload kinds. */
export function parseEip3009Key(key: string): { network: string; asset: Hex; from: Hex; nonce: Hex } | undefined {
  const match = /^eip3009:([^:]+:[^:]+):(0x[0-9a-f]{40}):(0x[0-9a-f]{40}):(0x[0-9a-f]{64})$/.exec(key);
  if (!match) return undefined;
  return { network: match[1]!, asset: match[2] as Hex, from: match[3] as Hex, nonce: match[4] as Hex };
}
