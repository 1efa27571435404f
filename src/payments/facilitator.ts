import { AsyncLocalStorage } from 'node:async_hooks';
import { HTTPFacilitatorClient, type FacilitatorClient } from '@x402/core/server';
import { x402Facilitator } from '@x402/core/facilitator';
import type { Network, PaymentPayload, PaymentRequirements, SupportedResponse } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { UptoEvmScheme } from '@x402/evm/upto/facilitator';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { createPublicClient, defineChain, encodeFunctionData, getAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { EvmSender } from './evm-sender.ts';
import { keepAliveHttp } from './rpc-transport.ts';
import { receiptFor, SettlementBatcher, type AuthorizationRef, type SettlementBatcherOptions } from './settlement-batcher.ts';

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
  /**
   * Send `exact` EIP-3009 settlements that arrive together as one Multicall3 transaction (see
   * SettlementBatcher): `true`, or the batch window and size. Verification stays per payment (the
   * SDK's, unchanged, also its re-verification in settle); only the sending is shared. Off by default.
   */
  batchSettlements?: boolean | Pick<SettlementBatcherOptions, 'windowMs' | 'maxBatch' | 'perPayer' | 'beforeBroadcast'>;
  /** How long an address's code (EOA or contract) is remembered (default 60 s). */
  codeCacheMs?: number;
}

/** The EIP-3009 authorization of the settlement running in this async context, when it is being batched. */
const batchedSettlement = new AsyncLocalStorage<AuthorizationRef>();

/**
 * The official x402 facilitator (`x402Facilitator` + the `exact`, `upto` and `batch-settlement` EVM schemes) running
 * in-process with a viem signer. Used by the dev stack and by operators who settle with their own gas wallet.
 * It is wrapped as a FacilitatorClient so the resource server treats it like a remote one.
 * `upto` settles through the Permit2 proxy at the SDK's canonical address (on anvil see src/devchain/permit2.ts).
 *
 * What it asks of the chain is kept small, each paid call costing several JSON-RPC requests: they go over
 * keep-alive `node:http` (keepAliveHttp); an address's code is remembered for a minute (the SDK reads the
 * payer's twice in verify and twice again in settle; an EOA stays one for that long, and a contract's code
 * does not vanish); transactions are signed here and sent one at a time in nonce order with a locally
 * counted nonce and briefly cached fees (EvmSender), their gas estimated first (which is also the check
 * that nothing doomed is broadcast); each receipt is polled once however many settlements share it.
 */
export function createLocalFacilitator(options: LocalFacilitatorOptions): FacilitatorClient & { address: Hex } {
  const chain = defineChain({
    id: options.chainId,
    name: `chain-${options.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const account = privateKeyToAccount(options.privateKey);
  const pollingInterval = options.pollingIntervalMs ?? 50;
  const publicClient = createPublicClient({ chain, transport: keepAliveHttp(options.rpcUrl), pollingInterval });
  // Transactions are prepared and broadcast one at a time (a nonce is never handed to two of them);
  // only the waits for receipts run concurrently.
  const sender = new EvmSender({ client: publicClient, account, chainId: options.chainId, pollingIntervalMs: pollingInterval, receiptTimeoutMs: options.receiptTimeoutMs ?? 15_000 });
  const batchOptions = options.batchSettlements === true ? {} : options.batchSettlements || undefined;
  const batcher = batchOptions ? new SettlementBatcher({ client: publicClient, sender, ...batchOptions }) : undefined;
  const getCode = codeCache(options.codeCacheMs ?? 60_000, (address) => publicClient.getCode({ address }));

  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => publicClient.readContract({ ...args, args: args.args ?? [] } as never),
    // Required by the signer type; the SDK's schemes check signatures themselves (verifyTypedDataSignature).
    verifyTypedData: (args) => publicClient.verifyTypedData(args as never),
    async writeContract(args) {
      const data = withSuffix(encodeFunctionData({ abi: args.abi, functionName: args.functionName, args: args.args } as never), args.dataSuffix);
      const batched = batchedSettlement.getStore();
      if (batcher && batched && args.functionName === 'transferWithAuthorization' && sameAddress(args.address, batched.asset) && args.args[5] === batched.nonce) {
        return batcher.submit({ payer: batched.from, to: args.address, data });
      }
      // The estimate is also the last check: a transaction that would revert is never broadcast.
      const gas =
        args.gas ??
        (await publicClient.estimateContractGas({ address: args.address, abi: args.abi, functionName: args.functionName, args: args.args, dataSuffix: args.dataSuffix, account: account.address, prepare: false } as never));
      return sender.broadcast({ to: args.address, data, gas });
    },
    async sendTransaction(args) {
      const gas = await publicClient.estimateGas({ account: account.address, to: args.to, data: args.data, prepare: false } as never);
      return sender.broadcast({ to: args.to, data: args.data, gas });
    },
    async waitForTransactionReceipt(args) {
      const receipt = await sender.waitForReceipt(args.hash);
      // A batch's receipt holds many settlements: each reads only its own call's outcome.
      const batched = batchedSettlement.getStore();
      return batcher && batched && batcher.isBatch(args.hash) ? receiptFor(receipt, batched) : receipt;
    },
    getCode: (args) => getCode(args.address),
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
    settle: (payload, requirements) => {
      const batched = batcher && batchableAuthorization(payload, requirements, options.network);
      return batched ? batchedSettlement.run(batched, () => facilitator.settle(payload, requirements)) : facilitator.settle(payload, requirements);
    },
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

/** The authorization of an x402 v2 `exact` EIP-3009 payment on this network: the settlements the batcher takes. */
function batchableAuthorization(payload: PaymentPayload, requirements: PaymentRequirements, network: Network): AuthorizationRef | undefined {
  if (payload.x402Version !== 2 || requirements.scheme !== 'exact' || requirements.network !== network) return undefined;
  const authorization = (payload.payload as { authorization?: { from?: unknown; to?: unknown; nonce?: unknown } } | undefined)?.authorization;
  if (!authorization || typeof authorization.from !== 'string' || typeof authorization.to !== 'string' || typeof authorization.nonce !== 'string') return undefined;
  if (!/^0x[0-9a-fA-F]{40}$/.test(authorization.from) || !/^0x[0-9a-fA-F]{40}$/.test(authorization.to) || !/^0x[0-9a-fA-F]{64}$/.test(authorization.nonce)) return undefined;
  if (!/^0x[0-9a-fA-F]{40}$/.test(requirements.asset)) return undefined;
  return { asset: getAddress(requirements.asset), from: authorization.from as Hex, to: authorization.to as Hex, nonce: authorization.nonce as Hex };
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function withSuffix(data: Hex, suffix: Hex | undefined): Hex {
  return suffix && suffix !== '0x' ? (`${data}${suffix.slice(2)}` as Hex) : data;
}

/**
 * eth_getCode remembered per address for `ttlMs` (concurrent reads of one address share a request).
 * Failures are not remembered.
 */
function codeCache(ttlMs: number, read: (address: Hex) => Promise<Hex | undefined>): (address: Hex) => Promise<Hex | undefined> {
  const entries = new Map<string, { at: number; code: Promise<Hex | undefined> }>();
  return (address) => {
    const key = address.toLowerCase();
    const now = performance.now();
    const hit = entries.get(key);
    if (hit && now - hit.at < ttlMs) return hit.code;
    if (entries.size >= 10_000) {
      for (const [k, e] of entries) if (now - e.at >= ttlMs) entries.delete(k);
      if (entries.size >= 10_000) entries.clear();
    }
    const code = read(address);
    entries.set(key, { at: now, code });
    code.catch(() => {
      if (entries.get(key)?.code === code) entries.delete(key);
    });
    return code;
  };
}

/** A remote facilitator over the x402 facilitator HTTP API (`/verify`, `/settle`, `/supported`). */
export function createRemoteFacilitator(url: string, timeoutMs: number): FacilitatorClient {
  return new HTTPFacilitatorClient({ url, timeoutMs });
}
