import type { PaymentPayload } from '@x402/core/types';

/** What the reservation records of a signed payment, for the reconciler to judge it on chain later. */
export interface PayloadFacts {
  /** Who signed, when the payload says. */
  payer?: string;
  /** Unix seconds after which the authorization can never execute (EVM). */
  validBefore?: number;
  /** Solana: the blockhash the signed transaction lives by. */
  recentBlockhash?: string;
}

/**
 * One kind of signed payload (an EIP-3009 authorization, a Permit2 transfer, a Solana transaction):
 * how it is recognised, the replay-guard key the chain itself enforces once, and its facts. The gate
 * and the reconciler both read payloads through these modules.
 */
export interface PayloadKind {
  readonly name: string;
  /** The replay key, or undefined when the payload is not of this kind. */
  key(payload: PaymentPayload): string | undefined;
  facts(payload: PaymentPayload): PayloadFacts;
}
