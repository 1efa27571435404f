import type { GateHook } from '../payments/gate.ts';
import type { Telemetry } from './counters.ts';

/** Counts paid calls and payment failures from the gate's outcomes; a stored result handed out again is not a new sale. */
export function telemetryGateHook(telemetry: Telemetry): GateHook {
  return ({ endpoint, origin, signedAmount }, result) => {
    if (result.status === 'served' && !result.replay) {
      // `exact` settlements do not echo the amount: it is the one signed.
      telemetry.paid(endpoint, result.settlement.amount ?? signedAmount, result.settlement.payer ?? 'unknown', origin);
    } else if (result.status === 'payment_failed') {
      const { category, reason, network } = result.failure;
      telemetry.failure(endpoint, category, reason, network);
    }
  };
}
