import type { PaymentPayload } from '@x402/core/types';
import type { PayloadKind } from './kind.ts';

/** The scheme name of x402 batch-settlement payments. */
export const BATCH_SCHEME = 'batch-settlement';

type Hex = `0x${string}`;

/** The voucher a batch-settlement payload carries (deposit, voucher and refund payloads all do). */
export interface BatchVoucher {
  type: 'deposit' | 'voucher' | 'refund';
  channelId: Hex;
  maxClaimableAmount: string;
  payer?: string;
  /** A deposit's EIP-3009 authorization deadline (Unix seconds), when it has one. */
  validBefore?: number;
}

export function batchVoucherOf(payload: PaymentPayload): BatchVoucher | undefined {
  if (payload.accepted?.scheme !== BATCH_SCHEME) return undefined;
  const raw = payload.payload as {
    type?: unknown;
    channelConfig?: { payer?: unknown };
    voucher?: { channelId?: unknown; maxClaimableAmount?: unknown };
    deposit?: { authorization?: { erc3009Authorization?: { validBefore?: unknown } } };
  };
  const { type, voucher } = raw ?? {};
  if (type !== 'deposit' && type !== 'voucher' && type !== 'refund') return undefined;
  if (typeof voucher?.channelId !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(voucher.channelId)) return undefined;
  if (typeof voucher.maxClaimableAmount !== 'string' || !/^\d{1,78}$/.test(voucher.maxClaimableAmount)) return undefined;
  const payer = typeof raw.channelConfig?.payer === 'string' ? raw.channelConfig.payer : undefined;
  const validBefore = Number(raw.deposit?.authorization?.erc3009Authorization?.validBefore);
  return {
    type,
    channelId: voucher.channelId.toLowerCase() as Hex,
    maxClaimableAmount: BigInt(voucher.maxClaimableAmount).toString(),
    ...(payer ? { payer } : {}),
    ...(Number.isSafeInteger(validBefore) ? { validBefore } : {}),
  };
}

/**
 * Batch-settlement vouchers: the key is the channel and the cumulative amount the voucher signs,
 * which the channel accepts at most once (each charge raises it), however the payload is encoded.
 */
export const batch: PayloadKind = {
  name: 'batch',
  key(payload) {
    const voucher = batchVoucherOf(payload);
    return voucher && `batch:${payload.accepted.network}:${voucher.channelId}:${voucher.maxClaimableAmount}`;
  },
  facts(payload) {
    const voucher = batchVoucherOf(payload);
    return { payer: voucher?.payer, validBefore: voucher?.validBefore };
  },
};

/** The channel and cumulative amount a key names, or undefined for other payload kinds. */
export function parseBatchKey(key: string): { network: string; channelId: Hex; maxClaimableAmount: string } | undefined {
  const match = /^batch:([^:]+:[^:]+):(0x[0-9a-f]{64}):(\d+)$/.exec(key);
  if (!match) return undefined;
  return { network: match[1]!, channelId: match[2] as Hex, maxClaimableAmount: match[3]! };
}
