import { createKeyPairSignerFromBytes } from '@solana/kit';
import { x402Facilitator } from '@x402/core/facilitator';
import type { FacilitatorClient } from '@x402/core/server';
import type { Network, SupportedResponse } from '@x402/core/types';
import { normalizeNetwork, toFacilitatorSvmSigner } from '@x402/svm';
import { registerExactSvmScheme } from '@x402/svm/exact/facilitator';

export interface SvmFacilitatorOptions {
  /** Solana JSON-RPC endpoint (HTTP). Confirmation polls getSignatureStatuses; no WebSocket is used. */
  rpcUrl: string;
  /** CAIP-2 id: solana mainnet, devnet or testnet (the only ones @x402/svm builds RPC clients for). */
  network: string;
  /** Fee payer keypair, 64 bytes (seed ‖ public key, the Solana CLI layout). Never logged. */
  feePayerSecretKey: Uint8Array;
}

/**
 * Registers the official x402 `exact` SVM facilitator scheme (v2, plus the v1 network names the SDK
 * adds) on `facilitator`, signing as the fee payer and talking to `rpcUrl`. The facilitator then
 * advertises `extra.feePayer` in getSupported(), which the resource server copies into its
 * payment requirements. Used unchanged by the dev stack and by operators on mainnet.
 */
export async function registerSvmFacilitator(facilitator: x402Facilitator, options: SvmFacilitatorOptions): Promise<{ feePayer: string }> {
  // Throws for a network @x402/svm cannot reach, at startup rather than at the first payment.
  const network = normalizeNetwork(options.network) as Network;
  if (options.feePayerSecretKey.length !== 64) {
    throw new Error(`Solana fee payer key must be 64 bytes (seed and public key), got ${options.feePayerSecretKey.length}`);
  }
  // Also checks that the public half matches the private half; the key stays non-extractable.
  const signer = await createKeyPairSignerFromBytes(options.feePayerSecretKey);
  registerExactSvmScheme(facilitator, {
    signer: toFacilitatorSvmSigner(signer, { defaultRpcUrl: options.rpcUrl }),
    networks: network,
  });
  return { feePayer: signer.address };
}

/** The official facilitator with only the SVM `exact` scheme, in-process, as a FacilitatorClient. */
export async function createLocalSvmFacilitator(options: SvmFacilitatorOptions): Promise<FacilitatorClient & { feePayer: string }> {
  const facilitator = new x402Facilitator();
  const { feePayer } = await registerSvmFacilitator(facilitator, options);
  return {
    feePayer,
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}
