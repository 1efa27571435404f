import { PERMIT2_ADDRESS } from '@x402/evm';
import { createPublicClient, getAddress, http, parseAbi, parseEventLogs, type Hex, type PublicClient } from 'viem';

const EIP3009_ABI = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

const PERMIT2_ABI = parseAbi(['function nonceBitmap(address owner, uint256 wordPosition) view returns (uint256)']);

export interface AuthorizationTransfer {
  txHash: Hex;
  to: Hex;
  value: bigint;
}

/**
 * What the reconciler asks of a chain about an EIP-3009 authorization: was it used, and by which
 * transfer. Read-only; it never sends a transaction.
 */
export interface SettlementChain {
  readonly family: 'evm';
  authorizationUsed(asset: Hex, from: Hex, nonce: Hex): Promise<boolean>;
  /** The transfer that used the authorization; `txHint` (a broadcast hash we know) is checked first. */
  findTransfer(asset: Hex, from: Hex, nonce: Hex, txHint?: Hex): Promise<AuthorizationTransfer | undefined>;
  /** Whether a Permit2 signature-transfer nonce (`upto`) of `owner` has been spent (Permit2's unordered nonce bitmap). */
  permit2NonceUsed(owner: Hex, nonce: bigint): Promise<boolean>;
  /** Whether the chain has mined this transaction (whatever its status). */
  hasTransaction(txHash: Hex): Promise<boolean>;
  /**
   * The latest block's timestamp, unix seconds: the clock the token contract judges `validBefore`
   * by. No later block can carry an authorization once this has passed it, whatever our clock says.
   */
  latestBlockTime(): Promise<number>;
}

/** Reads an EVM chain over JSON-RPC; logs are searched backwards in windows, as providers cap ranges. */
export function evmSettlementChain(rpcUrl: string, options: { lookbackBlocks?: number; windowBlocks?: number } = {}): SettlementChain {
  // No block-number cache: a transfer mined a moment ago must be searchable at once.
  const client: PublicClient = createPublicClient({ transport: http(rpcUrl), cacheTime: 0 });
  const lookback = BigInt(options.lookbackBlocks ?? 100_000);
  const window = BigInt(options.windowBlocks ?? 10_000);

  async function transferIn(txHash: Hex, asset: Hex, from: Hex, nonce: Hex): Promise<AuthorizationTransfer | undefined> {
    const receipt = await client.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
    if (!receipt || receipt.status !== 'success') return undefined;
    const logs = parseEventLogs({ abi: EIP3009_ABI, logs: receipt.logs.filter((l) => l.address.toLowerCase() === asset.toLowerCase()) });
    const used = logs.findIndex(
      (l) => l.eventName === 'AuthorizationUsed' && l.args.authorizer.toLowerCase() === from.toLowerCase() && l.args.nonce.toLowerCase() === nonce.toLowerCase(),
    );
    if (used < 0) return undefined;
    // The authorization's own transfer is the token's event beside its AuthorizationUsed (USDC emits
    // it right after): a transaction may carry several transfers of one payer (a batch of settlements),
    // and another one's recipient or amount must not be taken for this one's.
    const transfer = [logs[used + 1], logs[used - 1]].find((l) => l?.eventName === 'Transfer' && l.args.from.toLowerCase() === from.toLowerCase());
    if (!transfer || transfer.eventName !== 'Transfer') return undefined;
    return { txHash, to: transfer.args.to, value: transfer.args.value };
  }

  return {
    family: 'evm',
    latestBlockTime: async () => Number((await client.getBlock({ blockTag: 'latest' })).timestamp),

    async hasTransaction(txHash) {
      return (await client.getTransactionReceipt({ hash: txHash }).catch(() => undefined)) !== undefined;
    },

    async permit2NonceUsed(owner, nonce) {
      const word = await client.readContract({ address: PERMIT2_ADDRESS, abi: PERMIT2_ABI, functionName: 'nonceBitmap', args: [getAddress(owner), nonce >> 8n] });
      return ((word >> (nonce & 0xffn)) & 1n) === 1n;
    },

    authorizationUsed: (asset, from, nonce) =>
      client.readContract({ address: getAddress(asset), abi: EIP3009_ABI, functionName: 'authorizationState', args: [getAddress(from), nonce] }),

    async findTransfer(asset, from, nonce, txHint) {
      if (txHint) {
        const hinted = await transferIn(txHint, asset, from, nonce);
        if (hinted) return hinted;
      }
      const latest = await client.getBlockNumber();
      const oldest = latest > lookback ? latest - lookback : 0n;
      for (let to = latest; to >= oldest; to -= window) {
        const fromBlock = to - window + 1n > oldest ? to - window + 1n : oldest;
        const logs = await client.getLogs({
          address: getAddress(asset),
          event: EIP3009_ABI[1],
          args: { authorizer: getAddress(from), nonce },
          fromBlock,
          toBlock: to,
        });
        for (const log of logs) {
          const found = log.transactionHash && (await transferIn(log.transactionHash, asset, from, nonce));
          if (found) return found;
        }
        if (fromBlock === oldest) break;
      }
      return undefined;
    },
  };
}
