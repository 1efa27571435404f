import type { PaymentPayload } from '@x402/core/types';
import type { PayloadKind } from './kind.ts';

type Hex = `0x${string}`;

function permitOf(payload: PaymentPayload): { from: string; nonce: string; deadline?: unknown } | undefined {
  const permit = (payload.payload as { permit2Authorization?: { from?: unknown; nonce?: unknown; deadline?: unknown } }).permit2Authorization;
  if (typeof permit?.from !== 'string' || typeof permit.nonce !== 'string') return undefined;
  return { from: permit.from, nonce: permit.nonce, deadline: permit.deadline };
}

/**
 * Permit2 signature transfers (`upto`): the key is (network, owner, nonce), which Permit2 enforces
 * once across tokens. An upto charge of 0 never spends the nonce on chain, so only this key stops the
 * same authorization from buying a second response.
 */
export const permit2: PayloadKind = {
  name: 'permit2',
  key(payload) {
    const permit = permitOf(payload);
    return permit && `permit2:${payload.accepted.network}:${permit.from.toLowerCase()}:${permit.nonce}`;
  },
  facts(payload) {
    const permit = permitOf(payload);
    const deadline = Number(permit?.deadline);
    return { payer: permit?.from, validBefore: Number.isSafeInteger(deadline) ? deadline : undefined };
  },
};

/** The Permit2 authorization a key names, or undefined for other payload kinds. */
export function parsePermit2Key(key: string): { network: string; owner: Hex; nonce: bigint } | undefined {
  const match = /^permit2:([^:]+:[^:]+):(0x[0-9a-f]{40}):(\d+)$/.exec(key);
  if (!match) return undefined;
  return { network: match[1]!, owner: match[2] as Hex, nonce: BigInt(match[3]!) };
}
