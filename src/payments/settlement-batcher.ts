import { decodeErrorResult, decodeFunctionResult, encodeFunctionData, getAddress, pad, parseAbi, toEventSelector, type Hex, type Log, type PublicClient } from 'viem';
import type { EvmSender } from './evm-sender.ts';

/** Multicall3, at the same address on every chain that has it (Base, and the dev chain: src/devchain/contracts.ts). */
export const MULTICALL3_ADDRESS: Hex = '0xcA11bde05977b3631167028862bE2a173976CA11';

const MULTICALL3_ABI = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
]);

const AUTHORIZATION_USED = toEventSelector('AuthorizationUsed(address,bytes32)');
const TRANSFER = toEventSelector('Transfer(address,address,uint256)');

export interface SettlementBatcherOptions {
  client: PublicClient;
  sender: EvmSender;
  /**
   * How long the first settlement of a batch waits for others to join (default 5 ms). While a batch
   * is being prepared and broadcast, the next one keeps collecting, so under load batches grow with
   * the round trip to the chain.
   */
  windowMs?: number;
  /** Most settlements in one transaction (default 50). */
  maxBatch?: number;
  /**
   * Most payments of one payer in one transaction (default 1): a payer's payment is then named by its
   * transaction hash alone, as the ledger checks against the chain assume (one ledger row per
   * transaction and payer). Raise it only where those checks match transfers within a transaction.
   */
  perPayer?: number;
  /** Fault injection for tests: runs after the last check and before the broadcast. */
  beforeBroadcast?: (calls: readonly BatchedCall[]) => Promise<void>;
}

export interface BatchedCall {
  /** Whose authorization it is: a transaction carries at most one payment of each payer. */
  payer: Hex;
  /** The token. */
  to: Hex;
  /** `transferWithAuthorization(...)` calldata. */
  data: Hex;
}

/** The call reverted in the pre-broadcast check: nothing of it was sent. The message carries the revert reason. */
export class CallRevertedError extends Error {
  override name = 'CallRevertedError';
}

interface Pending extends BatchedCall {
  resolve(hash: Hex): void;
  reject(error: unknown): void;
}

/**
 * Sends EIP-3009 settlements that arrive together as one Multicall3 `aggregate3` transaction with
 * `allowFailure` on each call, so one bad authorization cannot undo the others.
 *
 * Before anything is broadcast the batch is checked against the chain: an estimate of the batch
 * with `allowFailure` off succeeds only when every call would; when it fails, one `eth_call` of the
 * batch with `allowFailure` on says which calls revert and why. Those are refused at once with
 * their revert reason (nothing of them was broadcast; the x402 facilitator classifies the reason as
 * it does a failed estimate of a single transfer) and the rest is checked again. A call that still
 * fails once mined (the chain moved in between) is told apart by its receipt: only a call whose
 * `AuthorizationUsed` event is in the receipt moved money (see receiptFor).
 *
 * A transaction carries at most one payment of each payer unless `perPayer` allows more (see
 * byPayer); a lone settlement is sent to the token directly, as without batching.
 */
export class SettlementBatcher {
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private windowOpen = false;
  /** Batches being checked and broadcast; the next batch waits for them unless it is full. */
  private preparing = 0;
  /** Multicall3 transactions this batcher sent (hash → when), whose receipts hold several settlements. */
  private readonly batches = new Map<Hex, number>();
  private multicallPresent: Promise<boolean> | undefined;

  constructor(private readonly options: SettlementBatcherOptions) {}

  /** Queues one transfer; resolves to the hash of the transaction that carries it once that is broadcast. */
  submit(call: BatchedCall): Promise<Hex> {
    return new Promise<Hex>((resolve, reject) => {
      this.queue.push({ ...call, resolve, reject });
      if (this.queue.length >= this.maxBatch) {
        this.flush(true);
      } else if (!this.timer && !this.windowOpen) {
        this.windowOpen = true;
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.windowOpen = false;
          this.flush(false);
        }, this.options.windowMs ?? 5);
      }
    });
  }

  /** Whether this hash is a batch of several settlements (its receipt must be read per settlement). */
  isBatch(hash: Hex): boolean {
    return this.batches.has(hash.toLowerCase() as Hex);
  }

  private get maxBatch(): number {
    return this.options.maxBatch ?? 50;
  }

  private flush(full: boolean): void {
    if (this.queue.length === 0) return;
    // A batch is being prepared: the queue keeps growing until it is broadcast (or fills up).
    if (this.preparing > 0 && !full) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.windowOpen = false;
    const queued = this.queue;
    this.queue = [];
    // Everything queued goes now, in as many transactions as one-payment-per-payer requires
    // (checked concurrently, broadcast one after another by the sender).
    for (const batch of byPayer(queued, this.maxBatch, this.options.perPayer ?? 1)) {
      this.preparing++;
      void this.send(batch).finally(() => {
        this.preparing--;
        // What arrived meanwhile goes next, its window already served.
        if (this.preparing === 0 && this.queue.length > 0 && !this.windowOpen) this.flush(false);
      });
    }
  }

  private async send(batch: Pending[]): Promise<void> {
    let calls = batch;
    try {
      if (calls.length > 1 && !(await this.hasMulticall())) {
        // No Multicall3 on this chain: each settlement on its own.
        await Promise.all(calls.map((call) => this.sendOne(call)));
        return;
      }
      for (let round = 0; calls.length > 1; round++) {
        const checked = await this.check(calls, round);
        if (checked.gas !== undefined) {
          if (this.options.beforeBroadcast) await this.options.beforeBroadcast(calls);
          const data = aggregate3(calls, true);
          let hash: Hex;
          try {
            hash = await this.options.sender.broadcast({ to: MULTICALL3_ADDRESS, data, gas: checked.gas });
          } catch (error) {
            for (const call of calls) call.reject(error);
            return;
          }
          this.remember(hash);
          for (const call of calls) call.resolve(hash);
          return;
        }
        calls = checked.remaining;
      }
      if (calls.length === 1) await this.sendOne(calls[0]!);
    } catch (error) {
      // Before any broadcast (the checks): nothing of these calls was sent.
      for (const call of calls) call.reject(error);
    }
  }

  /**
   * The gas of the batch when every call passes; otherwise the calls that revert are refused (with
   * their reason) and the rest comes back for another round.
   */
  private async check(calls: Pending[], round: number): Promise<{ gas: bigint; remaining?: undefined } | { gas?: undefined; remaining: Pending[] }> {
    const { client, sender } = this.options;
    try {
      const estimate = await client.estimateGas({ account: sender.address, to: MULTICALL3_ADDRESS, data: aggregate3(calls, false), prepare: false } as never);
      // `allowFailure` on costs a little more calldata than the estimate; the rest is headroom.
      return { gas: estimate + estimate / 10n + 5_000n * BigInt(calls.length) };
    } catch (estimateError) {
      if (round >= 2) throw estimateError;
      const answer = await client.call({ account: sender.address, to: MULTICALL3_ADDRESS, data: aggregate3(calls, true) });
      const results = decodeFunctionResult({ abi: MULTICALL3_ABI, functionName: 'aggregate3', data: answer.data ?? '0x' }) as readonly { success: boolean; returnData: Hex }[];
      if (results.length !== calls.length) throw estimateError;
      const remaining: Pending[] = [];
      calls.forEach((call, i) => {
        const result = results[i]!;
        if (result.success) remaining.push(call);
        else call.reject(new CallRevertedError(`execution reverted: ${revertReason(result.returnData)}`));
      });
      // Every call passes on its own: the estimate failed for another reason (the node, the gas).
      if (remaining.length === calls.length) throw estimateError;
      return { remaining };
    }
  }

  /** One settlement as its own transaction to the token, estimated first (a revert: nothing sent). */
  private async sendOne(call: Pending): Promise<void> {
    const { client, sender } = this.options;
    let gas: bigint;
    try {
      gas = await client.estimateGas({ account: sender.address, to: call.to, data: call.data, prepare: false } as never);
    } catch (error) {
      call.reject(error);
      return;
    }
    try {
      call.resolve(await sender.broadcast({ to: call.to, data: call.data, gas }));
    } catch (error) {
      call.reject(error);
    }
  }

  private hasMulticall(): Promise<boolean> {
    this.multicallPresent ??= this.options.client.getCode({ address: MULTICALL3_ADDRESS }).then(
      (code) => !!code && code !== '0x',
      (error: unknown) => {
        this.multicallPresent = undefined;
        throw error;
      },
    );
    return this.multicallPresent;
  }

  private remember(hash: Hex): void {
    const now = Date.now();
    this.batches.set(hash.toLowerCase() as Hex, now);
    // Receipts are read within minutes of the broadcast; older entries go.
    if (this.batches.size > 1000) {
      for (const [key, at] of this.batches) if (now - at > 30 * 60_000) this.batches.delete(key);
    }
  }
}

/**
 * Splits calls into batches of at most `max`, each with at most `perPayer` calls of one payer (by
 * default one: a payer's payment is then still named by its transaction hash, as the ledger, the
 * reconciler and anyone auditing the ledger against the chain may assume).
 */
function byPayer<T extends BatchedCall>(calls: readonly T[], max: number, perPayer: number): T[][] {
  const batches: { calls: T[]; payers: Map<string, number> }[] = [];
  for (const call of calls) {
    const payer = call.payer.toLowerCase();
    let batch = batches.find((b) => b.calls.length < max && (b.payers.get(payer) ?? 0) < perPayer);
    if (!batch) batches.push((batch = { calls: [], payers: new Map() }));
    batch.calls.push(call);
    batch.payers.set(payer, (batch.payers.get(payer) ?? 0) + 1);
  }
  return batches.map((b) => b.calls);
}

/** The calldata of one `aggregate3` over the calls. */
function aggregate3(calls: readonly BatchedCall[], allowFailure: boolean): Hex {
  return encodeFunctionData({ abi: MULTICALL3_ABI, functionName: 'aggregate3', args: [calls.map((c) => ({ target: c.to, allowFailure, callData: c.data }))] });
}

/** A revert's reason string (Error(string), Panic, or a custom error's name); `unknown reason` if none. */
function revertReason(data: Hex): string {
  if (!data || data === '0x') return 'unknown reason';
  try {
    const decoded = decodeErrorResult({ abi: [], data });
    return decoded.errorName === 'Error' ? String(decoded.args?.[0]) : `${decoded.errorName}(${(decoded.args ?? []).join(', ')})`;
  } catch {
    return `custom error ${data.slice(0, 10)}`;
  }
}

/** The authorization one settlement carries. */
export interface AuthorizationRef {
  asset: Hex;
  from: Hex;
  to: Hex;
  nonce: Hex;
}

/**
 * One settlement's view of a batch receipt: `success` only if the token logged `AuthorizationUsed`
 * for this very authorization (its call ran and moved the money), with that call's own logs (the
 * AuthorizationUsed and the Transfer beside it, which USDC emits right after); any other outcome
 * reads as a reverted transaction of its own. Another call's transfer of the same payer, payee and
 * value never counts for this one.
 */
export function receiptFor<R extends { status: string; logs: readonly Log[] }>(receipt: R, auth: AuthorizationRef): R {
  const asset = auth.asset.toLowerCase();
  const from = pad(getAddress(auth.from)).toLowerCase();
  const to = pad(getAddress(auth.to)).toLowerCase();
  const nonce = auth.nonce.toLowerCase();
  const logs = receipt.logs.filter((log) => log.address.toLowerCase() === asset);
  const topic = (log: Log | undefined, i: number) => log?.topics[i]?.toLowerCase();
  const used = receipt.status === 'success' ? logs.findIndex((log) => topic(log, 0) === AUTHORIZATION_USED && topic(log, 1) === from && topic(log, 2) === nonce) : -1;
  if (used < 0) return { ...receipt, status: 'reverted', logs: [] };
  const transfer = [logs[used + 1], logs[used - 1]].find((log) => topic(log, 0) === TRANSFER && topic(log, 1) === from && topic(log, 2) === to);
  return { ...receipt, logs: transfer ? [logs[used]!, transfer] : [logs[used]!] };
}
