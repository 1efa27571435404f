/**
 * The operator's wallet as products see it (src/payments/operator/ builds it): it pays upstream x402
 * sellers on a caller's behalf with the official x402 client, never more than a given ceiling, within
 * the operator's daily spend cap, and writes every upstream payment to the ledger (direction `out`),
 * linked to the caller's payment. Its key never leaves it.
 */
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import type { SafeRequest, SafeResponse } from '../../providers/safe-fetch.ts';

/** One request to pay for: where, how, and the most the operator may pay for it. */
export interface OutboundRequest {
  url: string;
  request?: SafeRequest;
  /** Atomic USDC: the most this one payment may be. */
  maxAmount: bigint;
  /** The product paying (the ledger row and the observatory name it). */
  product: string;
  /** The caller's payment (its replay key) the upstream payment is made for; none on a free-tier call. */
  callerPaymentKey?: string;
  /** The caller's address (payer or proven wallet), recorded beside the row. */
  caller?: string;
}

/** How an upstream answered a request the operator was ready to pay. */
export type OutboundResult =
  /** The resource asked for no payment: its answer as is. */
  | { kind: 'free'; response: SafeResponse }
  /** Paid: the upstream's answer after payment and its settlement (PAYMENT-RESPONSE, decoded). */
  | { kind: 'paid'; response: SafeResponse; requirements: PaymentRequirements; settlement: SettleResponse; ledgerId: string }
  /** Paid, but the upstream's settlement is not known (no PAYMENT-RESPONSE success): recorded, never guessed. */
  | { kind: 'unsettled'; response: SafeResponse; requirements: PaymentRequirements; moved: boolean | undefined; ledgerId: string }
  /** Asks more than `maxAmount` in the operator's asset: nothing signed; its terms and the cheapest option. */
  | { kind: 'above_limit'; terms: PaymentRequired; cheapest: PaymentRequirements }
  /** Asks for payment in no way the operator pays (network, asset or scheme), or in terms that do not parse: nothing signed. */
  | { kind: 'unpayable'; terms?: PaymentRequired };

export interface OperatorWallet {
  /** The public address the operator pays from. */
  address: string;
  /** CAIP-2 network and USDC asset the operator pays with (x402 `exact`). */
  network: string;
  asset: string;
  /** The most one fetch_x402_content may pay an upstream, atomic (FETCH_X402_MAX_PRICE_USD). */
  maxPerFetch: bigint;
  /** The service gateway's allowlist (GATEWAY_SELLERS): seller id → base URL. */
  sellers: ReadonlyMap<string, string>;
  /** Requests an allowlisted seller's URL (the operator configured it: loopback sellers allowed). */
  fetchSeller(url: string, request?: SafeRequest): Promise<SafeResponse>;
  /** An answer's x402 terms (v1 body or v2 PAYMENT-REQUIRED), or undefined when it carries none that parse. */
  termsOf(response: SafeResponse): PaymentRequired | undefined;
  /** The cheapest of `terms` the operator could pay (its network, asset and `exact`), if any. */
  payable(terms: PaymentRequired): PaymentRequirements | undefined;
  /**
   * Requests `url` through `fetch`; a 402 is paid (once) when one of its options fits the operator's
   * wallet and `maxAmount`. Throws OperatorCapReached when the daily cap would be passed (nothing
   * signed), and the fetcher's own errors.
   */
  pay(outbound: OutboundRequest, fetch: (url: string, request?: SafeRequest) => Promise<SafeResponse>): Promise<OutboundResult>;
  /**
   * Ends the payments whose outcome was not known (sent, no settlement in the answer, or this process
   * stopped before the answer) once their authorization has expired by the chain's clock, from the
   * chain: `settled` with the transaction that used it, else `released`.
   */
  resolveExpired(): Promise<number>;
}

/** The operator's daily spend cap would be passed by this payment: nothing was signed. */
export class OperatorCapReached extends Error {
  override name = 'OperatorCapReached';
  constructor(readonly secondsToNextDay: number) {
    super("the operator's daily spend cap for upstream payments is reached");
  }
}

// ---- The ledger's `out` direction, as the wallet writes it (the store implements it: store/operator-ledger.ts) ----

export interface OutboundEntry {
  id: string;
  product: string;
  /** The caller's payment this upstream payment was made for (`payments.payment_key`); none on a free-tier call. */
  callerPaymentKey?: string;
  caller?: string;
  /** The upstream URL paid. */
  resource: string;
  network: string;
  scheme: string;
  asset: string;
  payTo: string;
  /** Atomic units. */
  amount: string;
  /** The operator's address. */
  payer: string;
  /** UTC day the spend counts against, `YYYY-MM-DD`. */
  day: string;
}

export type OutboundState = 'reserved' | 'signed' | 'settled' | 'released' | 'unknown';

export interface OutboundRow extends OutboundEntry {
  direction: 'out';
  state: OutboundState;
  nonce?: string;
  validBefore?: number;
  txHash?: string;
  detail?: string;
  createdAt: Date;
  settledAt?: Date;
}

export interface OperatorLedger {
  /** Reserves the entry's amount within the day's cap and writes its row; false (nothing written) over the cap. */
  reserve(entry: OutboundEntry, capAtomic: bigint): Promise<boolean>;
  /** The authorization was signed with this nonce, valid until `validBefore` (unix seconds); about to be sent. */
  signed(id: string, nonce: string, validBefore?: number): Promise<void>;
  settled(id: string, txHash: string | undefined, at: Date): Promise<void>;
  /** Sent, outcome unknown: the reservation stays counted. */
  unknown(id: string, detail: string): Promise<void>;
  /** Nothing moved: the row is released and its amount given back to its day (once). */
  release(id: string, detail: string): Promise<void>;
  rows(options?: { callerPaymentKey?: string; limit?: number }): Promise<OutboundRow[]>;
  /** Signed or unknown rows whose authorization expired before `beforeSeconds` (unix): their outcome is final on chain. */
  expired(beforeSeconds: number): Promise<OutboundRow[]>;
  /** The day's reserved total (settled, signed, unknown and reserved rows), atomic. */
  spent(day: string): Promise<bigint>;
}
