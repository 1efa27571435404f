import type { LedgerEntry, PaymentReservation } from '../store/types.ts';

/** The reservation's terms a ledger row repeats. */
export type PaymentTerms = Pick<PaymentReservation, 'key' | 'product' | 'surface' | 'network' | 'scheme' | 'asset' | 'payTo' | 'amount' | 'payer'>;

/**
 * The one ledger row of a settled payment: the reservation's terms, overridden by what the
 * settlement says moved (its transaction, and where it reports them the amount, payer, network and
 * recipient). Built the same way whether the gate settled it or the reconciler found it on chain.
 */
export function ledgerEntry(
  terms: PaymentTerms,
  moved: { txHash: string; amount?: string; payer?: string; network?: string; payTo?: string },
  settledAt: Date,
): LedgerEntry {
  return {
    paymentKey: terms.key,
    payer: moved.payer || terms.payer || 'unknown',
    network: moved.network ?? terms.network,
    scheme: terms.scheme,
    amount: moved.amount ?? terms.amount,
    asset: terms.asset,
    payTo: moved.payTo ?? terms.payTo,
    txHash: moved.txHash,
    product: terms.product,
    surface: terms.surface,
    settledAt,
  };
}
