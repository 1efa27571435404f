import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { toClientEvmSigner } from '@x402/evm';
import type { Network, PaymentPayload } from '@x402/core/types';
import { createPublicClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/**
 * A fetch that pays x402 challenges with the given EVM key, built only from the official client
 * packages (`@x402/fetch`, `@x402/evm`): exactly what an agent developer would use.
 */
export function createPayingFetch(
  privateKey: Hex,
  options: {
    rpcUrl?: string;
    onPayment?: (payload: PaymentPayload) => void;
    /** Tokens beyond the SDK's default USDC list that this payer accepts, e.g. the dev chain's test USDC. */
    allowedAssets?: { network: Network; asset: string }[];
  } = {},
): typeof fetch {
  const account = privateKeyToAccount(privateKey);
  const publicClient = options.rpcUrl ? createPublicClient({ transport: http(options.rpcUrl) }) : undefined;
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: toClientEvmSigner(account, publicClient) });
  if (options.allowedAssets) client.setSpendControls({ allowedAssets: options.allowedAssets });
  const onPayment = options.onPayment;
  if (onPayment) client.onAfterPaymentCreation(async (context) => onPayment(context.paymentPayload));
  return wrapFetchWithPayment(fetch, client);
}
