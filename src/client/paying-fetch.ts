import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { BatchSettlementEvmScheme, type BatchSettlementDepositStrategy } from '@x402/evm/batch-settlement/client';
import { FileClientChannelStorage } from '@x402/evm/batch-settlement/client/file-storage';
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

/** A batch-settlement channel kept across runs: where its records live and what fixes its id. */
export interface BatchChannelOptions {
  /** The client's file storage root: one record per channel at `<directory>/client/<channelId>.json`. */
  storageDirectory: string;
  /**
   * Part of the channel id (with payer, receiver, authorizers, token and withdrawal delay): it must be
   * the same on every run that should find the stored record and reuse the channel's deposit.
   */
  salt: Hex;
  /** Sizes each deposit (the first and any top-up); without it the client's own policy decides. */
  depositStrategy?: BatchSettlementDepositStrategy;
}

/**
 * Pays x402 challenges with an EVM key. `exact` signs an EIP-3009 transfer of the quoted amount;
 * `upto` signs a Permit2 authorization of up to the quoted maximum (the server charges the actual
 * amount) and needs the payer's one-time Permit2 approval; `batch-settlement` deposits once into a
 * channel (EIP-3009) and then signs only cumulative vouchers, nothing on chain until the server claims.
 */
export function createPayingFetch(
  privateKey: Hex,
  options: X402Options & { rpcUrl?: string; scheme?: 'exact' | 'upto' | 'batch-settlement'; batch?: BatchChannelOptions } = {},
): typeof fetch {
  const account = privateKeyToAccount(privateKey);
  const publicClient = options.rpcUrl ? createPublicClient({ transport: http(options.rpcUrl) }) : undefined;
  const client = new x402Client();
  const signer = toClientEvmSigner(account, publicClient);
  if (options.scheme === 'upto') client.register('eip155:*', new UptoEvmScheme(signer));
  else if (options.scheme === 'batch-settlement') client.register('eip155:*', batchScheme(signer, options.batch));
  else registerExactEvmScheme(client, { signer });
  return withOptions(client, options);
}

/**
 * The official batch-settlement client over the SDK's file storage. Without a stored record (first
 * run, or records lost) it reads the channel's balance from the chain when it has an RPC.
 */
function batchScheme(signer: ReturnType<typeof toClientEvmSigner>, batch: BatchChannelOptions | undefined): BatchSettlementEvmScheme {
  if (!batch) throw new Error('batch-settlement needs a channel storage directory and salt');
  return new BatchSettlementEvmScheme(signer, {
    storage: new FileClientChannelStorage({ directory: batch.storageDirectory }),
    salt: batch.salt,
    ...(batch.depositStrategy ? { depositStrategy: batch.depositStrategy } : {}),
  });
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
