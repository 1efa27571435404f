import type { Network, PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { Errors } from 'mppx';
import { challengeHash, type AuthorizationPayload } from 'mppx/evm';
import { evm } from 'mppx/evm/server';
import type { Hex } from 'viem';

/** What the evm `charge` method is configured with: the EVM offer's token and recipient. */
export interface EvmChargeTerms {
  network: Network;
  chainId: number;
  asset: Hex;
  /** EIP-712 domain of the token (EIP-3009). */
  assetName: string;
  assetVersion: string;
  decimals: number;
  payTo: Hex;
  /** `maxTimeoutSeconds` of the x402 requirements a credential becomes. */
  maxTimeoutSeconds: number;
}

/**
 * mppx's `evm` charge method for these terms. Its credentials are EIP-3009 authorizations that the
 * gate settles through the x402 facilitator after the product ran (see toX402); mppx's own broadcast
 * is never used. The custom `settle` keeps mppx's validation local (no facilitator call).
 */
export function evmCharge(terms: EvmChargeTerms) {
  return evm.charge({
    currency: terms.asset,
    recipient: terms.payTo,
    chainId: terms.chainId,
    decimals: terms.decimals,
    authorization: { name: terms.assetName, version: terms.assetVersion },
    settle: async () => {
      throw new Errors.InternalPaymentError();
    },
  });
}

/** The x402 requirements an MPP charge of `amountAtomic` corresponds to (same shape as the x402 rail's quote). */
export function exactRequirements(terms: EvmChargeTerms, amountAtomic: bigint): PaymentRequirements {
  return {
    scheme: 'exact',
    network: terms.network,
    asset: terms.asset,
    amount: amountAtomic.toString(),
    payTo: terms.payTo,
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    extra: { name: terms.assetName, version: terms.assetVersion },
  };
}

/** An EIP-3009 authorization credential as the x402 `exact` payload with the same signature. */
export function toX402(terms: EvmChargeTerms, authorization: AuthorizationPayload, amountAtomic: bigint): { payload: PaymentPayload; requirements: PaymentRequirements } {
  const requirements = exactRequirements(terms, amountAtomic);
  const payload: PaymentPayload = {
    x402Version: 2,
    accepted: requirements,
    payload: {
      authorization: {
        from: authorization.from,
        to: authorization.to,
        value: authorization.value,
        validAfter: authorization.validAfter,
        validBefore: authorization.validBefore,
        nonce: authorization.nonce,
      },
      signature: authorization.signature,
    },
  };
  return { payload, requirements };
}

/** The nonce an MPP evm credential signs for a challenge: keccak256(id ‖ realm). */
export function challengeNonce(challenge: { id: string; realm: string }): Hex {
  return challengeHash(challenge);
}
