import { keccak256, TransactionReceiptNotFoundError, type Hex, type LocalAccount, type PublicClient, type TransactionReceipt } from 'viem';

export interface EvmSenderOptions {
  client: PublicClient;
  account: LocalAccount;
  chainId: number;
  /** Between two receipt polls. */
  pollingIntervalMs: number;
  /** How long a broadcast transaction's receipt is awaited; past it the wait fails (the payment is pending). */
  receiptTimeoutMs: number;
  /** How long fees read from the chain are reused (default 3 s); the fee cap leaves room for the base fee to double. */
  feeCacheMs?: number;
}

type Fees = { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 'legacy'; gasPrice: bigint };

/** A broadcast whose outcome is unknown: the node may or may not have the transaction. */
export class BroadcastUnknownError extends Error {
  override name = 'BroadcastUnknownError';
}

const NONCE_ERROR = /nonce too low|nonce too high|invalid nonce|nonce has already been used|replacement transaction underpriced|already imported/i;
const FEE_ERROR = /max fee per gas less than block base fee|fee cap less than block base fee|feecap.*(low|less)|transaction underpriced/i;
const KNOWN = /already known|known transaction/i;

/**
 * Signs and broadcasts the facilitator's transactions from one gas wallet, one at a time in nonce
 * order, with as few round trips as is safe: the nonce is counted here (read from the chain at the
 * first send and again after any error that may have left it wrong), fees are read at most every
 * few seconds with a cap of twice the base fee, and the gas limit is the caller's (an estimate, which
 * is also the check before anything is broadcast). Receipts are polled once per transaction, however
 * many settlements wait for it.
 */
export class EvmSender {
  private nonce: number | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private fees: { at: number; value: Promise<Fees> } | undefined;
  private readonly receipts = new Map<Hex, Promise<TransactionReceipt>>();

  constructor(private readonly options: EvmSenderOptions) {}

  get address(): Hex {
    return this.options.account.address;
  }

  /**
   * Broadcasts one transaction and returns its hash once the node accepted it. A nonce or fee the
   * node refuses (another sender on this key, a base fee that jumped) is read again and the
   * transaction re-signed once; any other failure is a BroadcastUnknownError.
   */
  broadcast(tx: { to: Hex; data: Hex; gas: bigint }): Promise<Hex> {
    const run = this.tail.then(() => this.broadcastNow(tx));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async broadcastNow(tx: { to: Hex; data: Hex; gas: bigint }): Promise<Hex> {
    const { client, account, chainId } = this.options;
    for (let attempt = 1; ; attempt++) {
      let raw: Hex;
      let nonce: number;
      try {
        const fees = await this.currentFees();
        nonce = this.nonce ??= await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
        raw = await account.signTransaction({ chainId, nonce, to: tx.to, data: tx.data, gas: tx.gas, value: 0n, ...fees } as never);
      } catch (error) {
        // Nothing was sent.
        this.nonce = undefined;
        throw error;
      }
      try {
        const hash = (await client.request({ method: 'eth_sendRawTransaction', params: [raw] })) as Hex;
        this.used(nonce);
        return hash;
      } catch (error) {
        const message = errorText(error);
        if (KNOWN.test(message)) {
          // This very transaction reached the node earlier (a retried request): it is sent.
          this.used(nonce);
          return keccak256(raw);
        }
        this.nonce = undefined;
        if (attempt === 1 && NONCE_ERROR.test(message)) continue;
        if (attempt === 1 && FEE_ERROR.test(message)) {
          this.fees = undefined;
          continue;
        }
        throw new BroadcastUnknownError('the transaction could not be confirmed as broadcast; its outcome is left to the chain', { cause: error });
      }
    }
  }

  /** The next nonce follows a sent one, unless the count was dropped meanwhile (then it is read again). */
  private used(nonce: number): void {
    if (this.nonce === nonce) this.nonce = nonce + 1;
  }

  /**
   * The receipt of a transaction this sender broadcast, polled once for all who wait on it. A wait
   * that fails (timeout, RPC error) is forgotten, so a later wait polls afresh; after a timeout the
   * nonce is read from the chain again before the next send (the transaction may have been dropped).
   */
  waitForReceipt(hash: Hex): Promise<TransactionReceipt> {
    let wait = this.receipts.get(hash);
    if (!wait) {
      wait = this.poll(hash);
      this.receipts.set(hash, wait);
      wait.then(
        () => setTimeout(() => this.receipts.delete(hash), 60_000).unref(),
        () => this.receipts.delete(hash),
      );
    }
    return wait;
  }

  private async poll(hash: Hex): Promise<TransactionReceipt> {
    const { client, pollingIntervalMs, receiptTimeoutMs } = this.options;
    const deadline = performance.now() + receiptTimeoutMs;
    for (;;) {
      try {
        return await client.getTransactionReceipt({ hash });
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        this.nonce = undefined;
        throw new Error(`transaction ${hash} was not mined within ${receiptTimeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(pollingIntervalMs, left)));
    }
  }

  private currentFees(): Promise<Fees> {
    const now = performance.now();
    if (!this.fees || now - this.fees.at > (this.options.feeCacheMs ?? 3_000)) {
      const value = this.readFees();
      this.fees = { at: now, value };
      value.catch(() => {
        if (this.fees?.value === value) this.fees = undefined;
      });
    }
    return this.fees.value;
  }

  private async readFees(): Promise<Fees> {
    const { client } = this.options;
    const block = await client.getBlock({ blockTag: 'latest' });
    if (block.baseFeePerGas === null || block.baseFeePerGas === undefined) return { type: 'legacy', gasPrice: (await client.getGasPrice()) * 2n };
    const priority = await client
      .request({ method: 'eth_maxPriorityFeePerGas' })
      .then((hex) => BigInt(hex as Hex))
      .catch(async () => {
        const price = await client.getGasPrice();
        return price > block.baseFeePerGas! ? price - block.baseFeePerGas! : 0n;
      });
    return { type: 'eip1559', maxPriorityFeePerGas: priority, maxFeePerGas: block.baseFeePerGas * 2n + priority };
  }
}

function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let e = error as { message?: string; details?: string; cause?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (e.message) parts.push(e.message);
    if (e.details) parts.push(e.details);
  }
  return parts.join(' | ');
}
