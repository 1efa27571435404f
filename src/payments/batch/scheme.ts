import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { x402ResourceServer } from '@x402/core/server';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/server';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { BatchChannelStorage } from '../../store/channel-storage.ts';

export { BATCH_SCHEME } from '../payloads/index.ts';

/** How batch-settlement channels are offered on an EVM network (BATCH_* settings). */
export interface BatchSettlementConfig {
  /**
   * Signs claims and cooperative refunds for the receiver (the channel's `receiverAuthorizer`). It
   * never sends transactions; its address is part of every channel, so it must stay the same across
   * restarts and be shared by all instances.
   */
  authorizerKey: Hex;
  /** Seconds a payer's timed withdrawal waits, during which unclaimed vouchers are claimed. */
  withdrawDelaySeconds: number;
}

/** The official server scheme over percall's channel storage. */
export function createBatchScheme(payTo: string, storage: BatchChannelStorage, config: BatchSettlementConfig): BatchSettlementEvmScheme {
  const authorizer = privateKeyToAccount(config.authorizerKey);
  return new BatchSettlementEvmScheme(payTo as Hex, {
    storage,
    withdrawDelay: config.withdrawDelaySeconds,
    receiverAuthorizerSigner: { address: authorizer.address, signTypedData: (params) => authorizer.signTypedData(params as never) },
  });
}

/**
 * The terms again for a batch-settlement payment that was refused, with the channel's state as the
 * server knows it (`extra.channelState`, `voucherState`), so the client can re-sync its cumulative
 * amount and sign the next voucher: the SDK's corrective 402.
 */
export async function correctiveAccepts(server: x402ResourceServer, accepts: PaymentRequirements[], payload: PaymentPayload, reason: string): Promise<PaymentRequirements[] | undefined> {
  try {
    const required = await server.createPaymentRequiredResponse(accepts, { url: payload.resource?.url ?? '' }, reason, undefined, undefined, payload);
    return required.accepts;
  } catch {
    return undefined;
  }
}
