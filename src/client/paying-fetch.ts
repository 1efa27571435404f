import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { toClientEvmSigner } from '@x402/evm';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { Network, PaymentPayload } from '@x402/core/types';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { Mppx, evm } from 'mppx/client';
import { createPublicClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

// Paying fetches built only from the official client packages (`@x402/fetch` with `@x402/evm` or
// `@x402/svm`, and `mppx/client`): exactly what an agent developer would use.

interface X402Options {
  onPayment?: (payload: PaymentPayload) => void;
  /** Tokens beyond the SDK's default USDC list that this payer accepts, e.g. the dev chain's test USDC. */
  allowedAssets?: { network: Network; asset: string }[];
}

/**
 * Pays x402 challenges with an EVM key. `exact` signs an EIP-3009 transfer of the quoted amount;
 * `upto` signs a Permit2 authorization of up to the quoted maximum (the server charges the actual
 * amount) and needs the payer's one-time Permit2 approval.
 */
export function createPayingFetch(privateKey: Hex, options: X402Options & { rpcUrl?: string; scheme?: 'exact' | 'upto' } = {}): typeof fetch {
  const account = privateKeyToAccount(privateKey);
  const publicClient = options.rpcUrl ? createPublicClient({ transport: http(options.rpcUrl) }) : undefined;
  const client = new x402Client();
  const signer = toClientEvmSigner(account, publicClient);
  if (options.scheme === 'upto') client.register('eip155:*', new UptoEvmScheme(signer));
  else registerExactEvmScheme(client, { signer });
  return withOptions(client, options);
}

/** Pays x402 `exact` challenges on Solana with a 64-byte secret key, reading chain state from `rpcUrl`. */
export async function createSolanaPayingFetch(secretKey: Uint8Array, options: X402Options & { rpcUrl?: string } = {}): Promise<typeof fetch> {
  const signer = await createKeyPairSignerFromBytes(secretKey);
  const client = new x402Client().register('solana:*', new ExactSvmScheme(signer, options.rpcUrl ? { rpcUrl: options.rpcUrl } : undefined));
  return withOptions(client, options);
}

function withOptions(client: x402Client, options: X402Options): typeof fetch {
  if (options.allowedAssets) client.setSpendControls({ allowedAssets: options.allowedAssets });
  const onPayment = options.onPayment;
  if (onPayment) client.onAfterPaymentCreation(async (context) => onPayment(context.paymentPayload));
  return wrapFetchWithPayment(fetch, client);
}

/**
 * An mppx client paying MPP challenges (`WWW-Authenticate: Payment`, method `evm`, intent `charge`)
 * with an EVM key: an EIP-3009 authorization sent as `Authorization: Payment`. Tokens outside
 * mppx's asset table (the dev chain's test USDC) are named with their chain and EIP-712 domain.
 */
export function createMppClient(privateKey: Hex, token?: MppToken) {
  return Mppx.create({
    polyfill: false,
    methods: [
      evm.charge({
        account: privateKeyToAccount(privateKey),
        ...(token ? { networks: [token.chainId], currencies: [token.address], authorization: { name: token.name, version: token.version } } : {}),
      }),
    ],
  });
}

export interface MppToken {
  chainId: number;
  address: Hex;
  name: string;
  version: string;
}

/** A fetch that pays MPP challenges (see createMppClient). */
export function createMppPayingFetch(privateKey: Hex, token?: MppToken): typeof fetch {
  return createMppClient(privateKey, token).fetch as typeof fetch;
}
