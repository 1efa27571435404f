import type { FacilitatorClient } from '@x402/core/server';
import type { Network } from '@x402/core/types';
import type { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/server';
import { describeError, type Logger } from '../../log.ts';
import type { Store } from '../../store/types.ts';

export interface BatchClaimsOptions {
  scheme: BatchSettlementEvmScheme;
  facilitator: FacilitatorClient;
  network: Network;
  token: `0x${string}`;
  store: Pick<Store, 'takeLease' | 'releaseLease' | 'recordBatchTransaction'>;
  log: Logger;
  /** This process, as the holder of the claim lease. */
  instanceId: string;
  /** How often vouchers are claimed (BATCH_CLAIM_INTERVAL_MS); well within the withdrawal delay. */
  intervalMs: number;
  /** Channels idle this long get what is left of their deposit back (BATCH_REFUND_IDLE_SECS). */
  refundIdleSeconds: number;
}

const LEASE = 'batch-claims';

/**
 * Turns the vouchers channels have accepted into money at PAY_TO, through the SDK's channel manager:
 * every interval, one instance at a time (a lease in the shared store), claim every channel's
 * charged-but-unclaimed vouchers on chain (in batches), then settle the claimed funds to the
 * receiver (only after the claim's receipt), then refund channels idle for long. Each transaction is
 * recorded. A claim that fails is retried next round: the vouchers stay durable in the channel store,
 * and a payer's timed withdrawal waits BATCH_WITHDRAW_DELAY_SECS, many rounds.
 */
export class BatchClaims {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly options: BatchClaimsOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.runOnce(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the rounds; with `flush`, one last claim and settle first (a clean shutdown). */
  async stop(flush: boolean): Promise<void> {
    clearInterval(this.timer);
    if (flush) await this.runOnce({ refunds: false });
    await this.running;
    await this.options.store.releaseLease(LEASE, this.options.instanceId).catch(() => undefined);
  }

  /** One round; rounds never overlap. */
  runOnce(what: { refunds?: boolean } = {}): Promise<void> {
    const round = this.running.then(() => this.round(what.refunds ?? true));
    this.running = round.catch(() => undefined);
    return round;
  }

  /**
   * Channels idle for BATCH_REFUND_IDLE_SECS with deposit left beyond what they were charged get it
   * back, one channel at a time: the SDK's `refundIdleChannels` stops at the first failure (and a
   * channel with nothing left reverts with ZeroRefund), which would hold up every channel after it.
   */
  private async refundIdle(manager: ReturnType<BatchSettlementEvmScheme['createChannelManager']>): Promise<void> {
    const { store, log, network, scheme, refundIdleSeconds } = this.options;
    const idleSince = Date.now() - refundIdleSeconds * 1000;
    const idle = (await scheme.getStorage().list()).filter((c) => c.lastRequestTimestamp <= idleSince && BigInt(c.balance) > BigInt(c.chargedCumulativeAmount));
    for (const channel of idle) {
      try {
        for (const refund of await manager.refund([channel.channelId])) {
          await store.recordBatchTransaction({ kind: 'refund', network, txHash: refund.transaction, channelId: refund.channel });
        }
      } catch (error) {
        log.warn({ err: describeError(error), channel: channel.channelId }, 'idle channel not refunded; tried again next round');
      }
    }
  }

  private async round(refunds: boolean): Promise<void> {
    const { store, log, instanceId, intervalMs, network } = this.options;
    try {
      // Held for a few rounds, renewed every round. Should a round outlast it, a second instance
      // claiming the same vouchers only repeats a claim the contract treats as done (no double pay).
      if (!(await store.takeLease(LEASE, instanceId, Math.max(3 * intervalMs, 1_000)))) return;
      const manager = this.options.scheme.createChannelManager(this.options.facilitator, network, this.options.token);
      const claims = await manager.claim();
      for (const claim of claims) await store.recordBatchTransaction({ kind: 'claim', network, txHash: claim.transaction, vouchers: claim.vouchers });
      if (claims.length > 0) {
        const settled = await manager.settle();
        await store.recordBatchTransaction({ kind: 'settle', network, txHash: settled.transaction });
        log.info({ claims: claims.length, vouchers: claims.reduce((n, c) => n + c.vouchers, 0), settle: settled.transaction }, 'batch-settlement vouchers claimed and settled to PAY_TO');
      }
      if (refunds) await this.refundIdle(manager);
    } catch (error) {
      log.warn({ err: describeError(error) }, 'batch-settlement claim round failed; the vouchers stay stored and are claimed next round');
    }
  }
}
