import { blockhash, createSolanaRpc, signature } from '@solana/kit';

/** What a signature says on chain: landed (confirmed, succeeded), failed (landed with an error), or not seen. */
export type SignatureOutcome = 'landed' | 'failed' | 'unknown';

/**
 * What the reconciler asks of a Solana cluster about a settlement of unknown outcome: what its
 * signature did, and whether the blockhash it was signed against can still carry it. Read-only.
 */
export interface SolanaSettlementChain {
  readonly family: 'solana';
  signatureOutcome(txSignature: string): Promise<SignatureOutcome>;
  /** False once the cluster no longer accepts transactions signed against this blockhash (about 150 blocks). */
  blockhashValid(recentBlockhash: string): Promise<boolean>;
}

export function solanaSettlementChain(rpcUrl: string): SolanaSettlementChain {
  const rpc = createSolanaRpc(rpcUrl);
  return {
    family: 'solana',
    async signatureOutcome(txSignature) {
      const { value } = await rpc.getSignatureStatuses([signature(txSignature)], { searchTransactionHistory: true }).send();
      const status = value[0];
      // `processed` can still be dropped with its fork: not yet an outcome.
      if (!status || status.confirmationStatus === 'processed') return 'unknown';
      return status.err === null ? 'landed' : 'failed';
    },
    async blockhashValid(recentBlockhash) {
      return (await rpc.isBlockhashValid(blockhash(recentBlockhash), { commitment: 'processed' }).send()).value;
    },
  };
}
