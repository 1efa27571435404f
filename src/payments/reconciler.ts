import type { Hex } from 'viem';
import { describeError, type Logger } from '../log.ts';
import type { Store, UnresolvedPayment } from '../store/types.ts';
import { ledgerEntry } from './ledger-entry.ts';
import { isTransactionReference } from './settlers.ts';
import { parseBatchKey, parseEip3009Key, parsePermit2Key } from './payloads/index.ts';
import type { SettlementChain } from './settlement-chain.ts';
import type { SolanaSettlementChain } from './solana-settlement-chain.ts';

/** Read access to the chain of a network the service takes payments on. */
export type ChainReader = SettlementChain | SolanaSettlementChain;

export interface ReconcilerOptions {
  /** This process's id, recorded as the owner of its reservations. */
  instanceId: string;
  /** An instance whose heartbeat is older than this is dead; its in-flight reservations are orphans. */
  ownerTimeoutMs: number;
  /** No call takes longer than this: even a live owner's reservation is an orphan after it. */
  inFlightTimeoutMs: number;
  /**
   * A settlement ends (settled, failed or parked as pending) within this: a live owner's row still
   * `settling` after it lost its ledger write, and the chain decides it. Default: inFlightTimeoutMs.
   */
  settlingTimeoutMs?: number;
  /** How long a payment settled without a delivered response stays redeemable; unbounded when unset. */
  redeemWindowMs?: number;
  /** Extra seconds after `validBefore` (by the chain's clock) before an unused authorization is declared failed. */
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
  private readonly beforePasses: (() => Promise<void>)[] = [];

  constructor(
    private readonly store: Store,
    private readonly chainFor: (network: string) => ChainReader | undefined,
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

  /** Work to do before each pass (the gate writes ledger rows it could not write at settlement). */
  beforePass(work: () => Promise<void>): void {
    this.beforePasses.push(work);
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
    if (chain?.family !== 'evm') return 0;
    let missing = 0;
    for (const entry of await this.store.ledger({ limit })) {
      if (entry.network !== network || entry.missingOnChainAt || !isTransactionReference(entry.txHash, network)) continue;
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
      for (const work of this.beforePasses) await work();
      return this.pass();
    });
    this.running = pass.catch(() => undefined);
    return pass;
  }

  private async pass(): Promise<Record<Resolution, number>> {
    const counts: Record<Resolution, number> = { settled: 0, failed: 0, released: 0, unresolved: 0, in_flight: 0 };
    const rows = await this.store.unresolvedPayments();
    if (rows.length === 0) return counts;
    const live = this.store.exclusive ? new Set<string>() : await this.store.liveInstances(this.options.ownerTimeoutMs);
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
    const voucher = parseBatchKey(row.key);
    if (voucher) return this.resolveVoucher(row, voucher);
    const reader = this.chainFor(row.network);
    if (reader?.family === 'solana') return this.resolveSolana(row, reader);
    const chain = reader;
    const authorization = parseEip3009Key(row.key);
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
        if (transfer.to.toLowerCase() !== row.payTo.toLowerCase()) {
          // The payer spent this authorization elsewhere: nothing reached us, nothing is owed.
          await this.store.markFailed(row.key, 'authorization used by a transfer to another address');
          return 'failed';
        }
        await this.store.recordSettlement(ledgerEntry(row, { txHash: transfer.txHash, amount: transfer.value.toString(), payer: from, payTo: transfer.to }, this.now()), this.owed());
        this.log.warn({ product: row.product, txHash: transfer.txHash }, 'payment settled without a delivered response; the payer may collect it with the same payment');
        return 'settled';
      }
      return await this.unusedOnChain(row, chain);
    } catch (error) {
      this.log.warn({ err: describeError(error), product: row.product }, 'could not check a pending payment on chain');
      return 'unresolved';
    }
  }

  /**
   * The authorization is not used on chain: failed once it can no longer be (expired by the chain's
   * clock, so a skewed local clock cannot fail a payment that may still land), pending until then.
   */
  private async unusedOnChain(row: UnresolvedPayment, chain: SettlementChain): Promise<Resolution> {
    const expiry = (row.validBefore ?? Number.POSITIVE_INFINITY) + (this.options.expiryMarginSeconds ?? 30);
    if (Number.isFinite(expiry) && (await chain.latestBlockTime()) > expiry) {
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
        await this.store.recordSettlement(ledgerEntry(row, { txHash: row.txHash ?? '', payer: row.payer ?? permit.owner }, this.now()), this.owed());
        this.log.warn({ product: row.product, amount: row.amount }, 'upto payment settled without a delivered response; the payer may collect it with the same payment');
        return 'settled';
      }
      return await this.unusedOnChain(row, chain);
    } catch (error) {
      this.log.warn({ err: describeError(error), product: row.product }, 'could not check a pending payment on chain');
      return 'unresolved';
    }
  }

  /**
   * A Solana settlement: its signature (when the broadcast returned one) says whether it landed.
   * Not seen, and its blockhash no longer valid: it can never land, so nothing moved. Without a
   * signature the outcome cannot be read from the chain; it stays pending for the operator.
   */
  private async resolveSolana(row: UnresolvedPayment, chain: SolanaSettlementChain): Promise<Resolution> {
    if (!row.txHash) {
      if (row.state !== 'pending') await this.store.markPending(row.key, { reason: 'Solana settlement without a known signature; check by hand' });
      return 'unresolved';
    }
    try {
      let outcome = await chain.signatureOutcome(row.txHash);
      if (outcome === 'unknown' && row.recentBlockhash && !(await chain.blockhashValid(row.recentBlockhash))) {
        // Asked again after the blockhash check, so a transaction landing in between is not missed.
        outcome = await chain.signatureOutcome(row.txHash);
        if (outcome === 'unknown') outcome = 'failed';
      }
      if (outcome === 'landed') {
        // The signed transaction transfers exactly the quoted amount to the pay-to (verified before the fee payer signed it).
        await this.store.recordSettlement(ledgerEntry(row, { txHash: row.txHash }, this.now()), this.owed());
        this.log.warn({ product: row.product, txHash: row.txHash }, 'Solana payment settled without a delivered response; the payer may collect it with the same payment');
        return 'settled';
      }
      if (outcome === 'failed') {
        await this.store.markFailed(row.key, 'Solana transaction failed or expired unconfirmed');
        return 'failed';
      }
      if (row.state !== 'pending') await this.store.markPending(row.key, { txHash: row.txHash, reason: 'settlement outcome unknown' });
      return 'unresolved';
    } catch (error) {
      this.log.warn({ err: describeError(error), product: row.product }, 'could not check a pending Solana payment');
      return 'unresolved';
    }
  }

  /**
   * A batch-settlement voucher: the channel store, not the chain, says whether it was charged. The
   * channel keeps a voucher's signature only once its charge is committed, so a channel whose signed
   * cumulative amount reached this voucher's charged it (its response is owed once); otherwise
   * nothing was charged and the voucher is free again (its hold on the channel expires by itself).
   */
  private async resolveVoucher(row: UnresolvedPayment, voucher: { channelId: string; maxClaimableAmount: string }): Promise<Resolution> {
    try {
      const channel = await this.store.channelStorage().get(voucher.channelId);
      if (channel && BigInt(channel.signedMaxClaimable) >= BigInt(voucher.maxClaimableAmount)) {
        await this.store.recordSettlement(ledgerEntry(row, { txHash: row.txHash ?? row.key, payer: row.payer ?? channel.channelConfig.payer }, this.now()), this.owed());
        this.log.warn({ product: row.product, channel: voucher.channelId }, 'channel voucher charged without a delivered response; the payer may collect it with the same payment');
        return 'settled';
      }
      await this.store.releasePayment(row.key);
      return 'released';
    } catch (error) {
      this.log.warn({ err: describeError(error), product: row.product }, 'could not check a voucher against its channel');
      return 'unresolved';
    }
  }

  private isOrphan(row: UnresolvedPayment, live: Set<string>): boolean {
    if (row.ageMs > this.options.inFlightTimeoutMs) return true;
    if (row.state === 'settling' && row.ageMs > (this.options.settlingTimeoutMs ?? this.options.inFlightTimeoutMs)) return true;
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
