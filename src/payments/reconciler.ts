import type { Hex } from 'viem';
import { describeError, type Logger } from '../log.ts';
import type { Store, UnresolvedPayment } from '../store/types.ts';
import { parseEip3009Key, parsePermit2Key } from './payment-key.ts';
import type { SettlementChain } from './settlement-chain.ts';

export interface ReconcilerOptions {
  /** This process's id, recorded as the owner of its reservations. */
  instanceId: string;
  /** An instance whose heartbeat is older than this is dead; its in-flight reservations are orphans. */
  ownerTimeoutMs: number;
  /** No call takes longer than this: even a live owner's reservation is an orphan after it. */
  inFlightTimeoutMs: number;
  /** How long a payment settled without a delivered response stays redeemable; unbounded when unset. */
  redeemWindowMs?: number;
  /** Extra seconds after `validBefore` before an unused authorization is declared failed (clock skew). */
  expiryMarginSeconds?: number;
  clock?: () => Date;
}

export type Resolution = 'settled' | 'failed' | 'released' | 'unresolved' | 'in_flight';

/**
 * Brings every payment whose outcome is unknown to an end, without ever settling twice: the chain
 * is the judge. An authorization used on chain becomes a ledger row (owed one response, which the
 * payer can collect by presenting the same payment again); one that expired unused becomes failed;
 * a reservation that never asked for settlement is released.
 */
export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly chainFor: (network: string) => SettlementChain | undefined,
    private readonly log: Logger,
    private readonly options: ReconcilerOptions,
  ) {}

  /** Heartbeat and a reconciliation pass now, then every `intervalMs`. */
  async start(intervalMs: number): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): Promise<unknown> {
    return this.runOnce().catch((error: unknown) => this.log.warn({ err: describeError(error) }, 'reconciliation pass failed; will retry'));
  }

  /**
   * Checks the newest `limit` ledger rows of a network against its chain, and flags (and logs) every
   * row whose transaction the chain does not have: a dev chain restarted from state saved before a
   * settlement it had confirmed. The row stays: the ledger records what was acknowledged to a payer.
   */
  async checkLedgerAgainstChain(network: string, limit: number): Promise<number> {
    const chain = this.chainFor(network);
    if (!chain) return 0;
    let missing = 0;
    for (const entry of await this.store.ledger({ limit })) {
      if (entry.network !== network || entry.missingOnChainAt || !/^0x[0-9a-fA-F]{64}$/.test(entry.txHash)) continue;
      if (await chain.hasTransaction(entry.txHash as Hex)) continue;
      missing++;
      await this.store.markMissingOnChain(entry.paymentKey);
      this.log.error({ product: entry.product, txHash: entry.txHash, amount: entry.amount }, 'ledger row whose transaction the chain does not have (a dev chain restarted from older state); flagged in the ledger');
    }
    return missing;
  }

  /** One heartbeat and one pass; passes never overlap (a payment is judged by one pass at a time). */
  runOnce(): Promise<Record<Resolution, number>> {
    const pass = this.running.then(async () => {
      await this.store.heartbeat(this.options.instanceId);
      return this.pass();
    });
    this.running = pass.catch(() => undefined);
    return pass;
  }

  private async pass(): Promise<Record<Resolution, number>> {
    const counts: Record<Resolution, number> = { settled: 0, failed: 0, released: 0, unresolved: 0, in_flight: 0 };
    const rows = await this.store.unresolvedPayments();
    if (rows.length === 0) return counts;
    const now = this.now();
    const live = this.store.exclusive ? new Set<string>() : await this.store.liveInstances(new Date(now.getTime() - this.options.ownerTimeoutMs));
    live.add(this.options.instanceId);
    for (const row of rows) counts[await this.resolve(row, live)]++;
    if (counts.settled + counts.failed + counts.released > 0) this.log.info(counts, 'reconciled payments');
    return counts;
  }

  /** Resolves one payment now (a payer retrying with a pending payment does not wait for the next pass). */
  resolveKey(key: string): Promise<Resolution> {
    const resolution = this.running.then(async () => {
      const row = (await this.store.unresolvedPayments()).find((r) => r.key === key);
      // Only `pending` rows: a reservation in flight elsewhere is that instance's to finish.
      return row?.state === 'pending' ? this.resolve(row, new Set()) : 'in_flight';
    });
    this.running = resolution.catch(() => undefined);
    return resolution;
  }

  private async resolve(row: UnresolvedPayment, live: Set<string>): Promise<Resolution> {
    if (row.state !== 'pending' && !this.isOrphan(row, live)) return 'in_flight';
    if (row.state === 'verifying') {
      // Settlement was never requested for it: nothing can have moved.
      await this.store.releasePayment(row.key);
      return 'released';
    }
    const authorization = parseEip3009Key(row.key);
    const chain = this.chainFor(row.network);
    const permit = parsePermit2Key(row.key);
    if (permit && chain) return this.resolvePermit2(row, permit, chain);
    if (!authorization || !chain) {
      await this.store.markPending(row.key, { txHash: row.txHash, reason: 'cannot be checked on chain from this instance' });
      return 'unresolved';
    }
    try {
      const { asset, from, nonce } = authorization;
      if (await chain.authorizationUsed(asset, from, nonce)) {
        const transfer = await chain.findTransfer(asset, from, nonce, row.txHash as Hex | undefined);
        if (!transfer) {
          await this.store.markPending(row.key, { txHash: row.txHash, reason: 'authorization used on chain; transfer not found yet' });
          return 'unresolved';
        }
        await this.store.recordSettlement(
          {
            paymentKey: row.key,
            payer: from,
            network: row.network,
            scheme: row.scheme,
            amount: transfer.value.toString(),
            asset: row.asset,
            payTo: transfer.to,
            txHash: transfer.txHash,
            product: row.product,
            surface: row.surface,
            settledAt: this.now(),
          },
          this.owed(),
        );
        this.log.warn({ product: row.product, txHash: transfer.txHash }, 'payment settled without a delivered response; the payer may collect it with the same payment');
        return 'settled';
      }
      return await this.unusedOnChain(row);
    } catch (error) {
      this.log.warn({ err: describeError(error), product: row.product }, 'could not check a pending payment on chain');
      return 'unresolved';
    }
  }

  /** The authorization is not used on chain: failed once it can no longer be (expired), pending until then. */
  private async unusedOnChain(row: UnresolvedPayment): Promise<Resolution> {
    const expiry = (row.validBefore ?? Number.POSITIVE_INFINITY) + (this.options.expiryMarginSeconds ?? 30);
    if (this.now().getTime() / 1000 > expiry) {
      await this.store.markFailed(row.key, 'authorization expired unused');
      return 'failed';
    }
    if (row.state !== 'pending') await this.store.markPending(row.key, { txHash: row.txHash, reason: 'settlement outcome unknown' });
    return 'unresolved';
  }

  /**
   * An `upto` payment: Permit2 spends the nonce only when a settlement landed, and the charge was
   * recorded before settlement was requested, so a spent nonce means exactly that amount moved.
   * Permit2 emits no event naming the nonce, so the ledger row carries the broadcast hash if known.
   */
  private async resolvePermit2(row: UnresolvedPayment, permit: { owner: Hex; nonce: bigint }, chain: SettlementChain): Promise<Resolution> {
    try {
      if (await chain.permit2NonceUsed(permit.owner, permit.nonce)) {
        await this.store.recordSettlement(
          { paymentKey: row.key, payer: row.payer ?? permit.owner, network: row.network, scheme: row.scheme, amount: row.amount, asset: row.asset, payTo: row.payTo, txHash: row.txHash ?? '', product: row.product, surface: row.surface, settledAt: this.now() },
          this.owed(),
        );
        this.log.warn({ product: row.product, amount: row.amount }, 'upto payment settled without a delivered response; the payer may collect it with the same payment');
        return 'settled';
      }
      return await this.unusedOnChain(row);
    } catch (error) {
      this.log.warn({ err: describeError(error), product: row.product }, 'could not check a pending payment on chain');
      return 'unresolved';
    }
  }

  private isOrphan(row: UnresolvedPayment, live: Set<string>): boolean {
    if (this.now().getTime() - row.updatedAt.getTime() > this.options.inFlightTimeoutMs) return true;
    return !live.has(row.owner);
  }

  /** A settlement found on chain after the fact: its response is owed once, within the redeem window. */
  private owed(): { delivered: false; redeemableUntil?: Date } {
    const window = this.options.redeemWindowMs;
    return { delivered: false, ...(window !== undefined ? { redeemableUntil: new Date(this.now().getTime() + window) } : {}) };
  }

  private now(): Date {
    return this.options.clock?.() ?? new Date();
  }
}
