import { HTTPFacilitatorClient, type FacilitatorClient } from '@x402/core/server';
import { x402Facilitator } from '@x402/core/facilitator';
import type { Network, SupportedResponse } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { UptoEvmScheme } from '@x402/evm/upto/facilitator';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { createNonceManager, createPublicClient, createWalletClient, defineChain, http, verifyTypedData, type Hex } from 'viem';
import { jsonRpc } from 'viem/nonce';
import { privateKeyToAccount } from 'viem/accounts';

export interface LocalFacilitatorOptions {
  rpcUrl: string;
  chainId: number;
  network: Network;
  /** Gas wallet that submits settlements. Never logged. */
  privateKey: Hex;
  /** Receipt polling interval; anvil mines instantly, so short polling keeps settlement fast. */
  pollingIntervalMs?: number;
  /**
   * How long a settlement waits for its receipt (FACILITATOR_TIMEOUT_MS). A transaction that is not
   * mined by then (dropped, stuck behind a gap) ends the call as `pending`, which the reconciler
   * resolves from the chain; without a bound the call would wait as long as viem's default.
   */
  receiptTimeoutMs?: number;
}

/**
 * The official x402 facilitator (`x402Facilitator` + the `exact`, `upto` and `batch-settlement` EVM schemes) running
 * in-process with a viem signer. Used by the dev stack and by operators who settle with their own gas wallet.
 * It is wrapped as a FacilitatorClient so the resource server treats it like a remote one.
 * `upto` settles through the Permit2 proxy at the SDK's canonical address (on anvil see src/devchain/permit2.ts).
 */
export function createLocalFacilitator(options: LocalFacilitatorOptions): FacilitatorClient & { address: Hex } {
  const chain = defineChain({
    id: options.chainId,
    name: `chain-${options.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  // A nonce manager hands out nonces locally, one per facilitator: viem's shared `nonceManager` would carry
  // a count over to another chain with the same key. Its counter can still hand one nonce to two
  // transactions prepared at the same time (it refetches the pending count while others are unsent), and
  // a duplicate nonce can replace another payment's transfer in the pool. So transactions are prepared
  // and broadcast one at a time (milliseconds each); only the wait for receipts runs concurrently.
  const account = privateKeyToAccount(options.privateKey, { nonceManager: createNonceManager({ source: jsonRpc() }) });
  const inOrder = serially();
  const pollingInterval = options.pollingIntervalMs ?? 50;
  const transport = http(options.rpcUrl, { batch: false });
  const publicClient = createPublicClient({ chain, transport, pollingInterval });
  const walletClient = createWalletClient({ account, chain, transport, pollingInterval });

  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => publicClient.readContract({ ...args, args: args.args ?? [] } as never),
    // A plain ECDSA signature is checked locally; only contract wallets (ERC-1271/6492) need the chain.
    verifyTypedData: async (args) => (await verifyTypedData(args as never).catch(() => false)) || publicClient.verifyTypedData(args as never),
    writeContract: (args) => inOrder(() => walletClient.writeContract({ ...args, chain, account } as never)),
    sendTransaction: (args) => inOrder(() => walletClient.sendTransaction({ ...args, chain, account })),
    waitForTransactionReceipt: (args) => publicClient.waitForTransactionReceipt({ ...args, pollingInterval, timeout: options.receiptTimeoutMs ?? 15_000 }),
    getCode: (args) => publicClient.getCode(args),
  });

  // upto simulates the proxy's `settle` with eth_call during verify, and the proxy only accepts the
  // facilitator named in the signed witness as caller: its reads must come from the gas wallet.
  const uptoSigner: typeof signer = {
    ...signer,
    readContract: (args) => publicClient.readContract({ ...args, args: args.args ?? [], account: account.address } as never),
  };

  const facilitator = new x402Facilitator();
  registerExactEvmScheme(facilitator, { signer, networks: options.network });
  facilitator.register(options.network, new UptoEvmScheme(uptoSigner));
  // batch-settlement: deposits, claims, settles and refunds through the channel contract at the SDK's canonical
  // address (on anvil see src/devchain/batch-settlement.ts). No authorizer signer: this facilitator advertises no
  // `receiverAuthorizer`, so a resource server signs its own claims and refunds (its receiverAuthorizerSigner)
  // and no caller of /settle can have a refund signed on a receiver's behalf.
  facilitator.register(options.network, new BatchSettlementEvmScheme(signer));
  return {
    address: account.address,
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

/** Runs the given tasks one after another, in call order, whatever each one's outcome. */
function serially(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** A remote facilitator over the x402 facilitator HTTP API (`/verify`, `/settle`, `/supported`). */
export function createRemoteFacilitator(url: string, timeoutMs: number): FacilitatorClient {
  return new HTTPFacilitatorClient({ url, timeoutMs });
}
