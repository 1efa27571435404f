import { createHash } from 'node:crypto';
import { getCompiledTransactionMessageDecoder } from '@solana/kit';
import { decodeTransactionFromPayload, getTokenPayerFromTransaction, type ExactSvmPayloadV2 } from '@x402/svm';
import { canonicalJson } from '../../canonical-json.ts';
import type { PayloadKind } from './kind.ts';

/**
 * Solana transactions (x402 `exact` SVM), and any other payload: the key hashes the signed payload,
 * whose transaction the cluster runs at most once. Facts come from the transaction itself.
 */
export const svm: PayloadKind = {
  name: 'svm',
  key(payload) {
    return `payload:${payload.accepted.network}:${createHash('sha256').update(canonicalJson(payload.payload)).digest('hex')}`;
  },
  facts(payload) {
    if (!payload.accepted.network.startsWith('solana:')) return {};
    try {
      const transaction = decodeTransactionFromPayload(payload.payload as ExactSvmPayloadV2);
      const recentBlockhash = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes).lifetimeToken;
      return { recentBlockhash, payer: getTokenPayerFromTransaction(transaction) || undefined };
    } catch {
      return {};
    }
  },
};
