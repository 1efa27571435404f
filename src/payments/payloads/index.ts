import type { PaymentPayload } from '@x402/core/types';
import { batch } from './batch.ts';
import { eip3009 } from './eip3009.ts';
import type { PayloadKind } from './kind.ts';
import { permit2 } from './permit2.ts';
import { svm } from './svm.ts';

export { BATCH_SCHEME, batchVoucherOf, parseBatchKey, type BatchVoucher } from './batch.ts';
export { parseEip3009Key } from './eip3009.ts';
export { parsePermit2Key } from './permit2.ts';
export type { PayloadFacts, PayloadKind } from './kind.ts';

/** The kinds in the order they are tried; the last recognises any payload. */
const KINDS: readonly PayloadKind[] = [batch, eip3009, permit2, svm];

/** The kind of a payload and its replay-guard key. */
export function payloadKindOf(payload: PaymentPayload): { kind: PayloadKind; key: string } {
  for (const kind of KINDS) {
    const key = kind.key(payload);
    if (key !== undefined) return { kind, key };
  }
  throw new Error('unreachable: the last payload kind recognises every payload');
}
