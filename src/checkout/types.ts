import type { PaymentPayload, PaymentRequired, SettleResponse } from '@x402/core/types';
import type { Receipt } from 'mppx';
import type { AvailableProduct, Product } from '../catalogue/types.ts';
import type { ProofRequest } from '../identity/proof-request.ts';
import type { MppProblem } from '../payments/mpp/index.ts';
import type { EncodedQuote } from '../payments/x402-rail.ts';
import type { Origin } from '../telemetry/counters.ts';
import type { Problem } from './problems.ts';

/** Which door a call came through: it fixes the price surface, the resource URL and the telemetry key. */
export type Door =
  /** The product's own HTTP route (`/api/v1/paid/<id>`). */
  | { kind: 'route' }
  /** An order door (`POST /api/v1/orders`): the product is named in the body, its input under `input`. */
  | { kind: 'order'; path: string }
  /** The product's MCP tool. */
  | { kind: 'tool' };

/** A paid call as any door hands it over: nothing in it is HTTP or JSON-RPC. */
export interface CheckoutRequest {
  door: Door;
  /** The product (routes and tools know theirs), or what an order named (found by id or tool name, if on sale). */
  product: Product | { named: unknown };
  /** The HTTP method a route was called with; other doors leave it out. */
  method?: string;
  input: RawInput;
  payment: PresentedPayment;
  /** A wallet proof (Sign-In-With-X) claiming a free-tier call; `malformed` when the door could not decode it. */
  freeClaim?: { proof: unknown } | { malformed: true };
  /** Public origin of the service (`https://api.example`): resource URLs and wallet-proof challenges name it. */
  publicOrigin: string;
  caller: Caller;
}

/** Who calls, read only when a step needs it (a country lookup, a client key). */
export interface Caller {
  /** Where the call comes from, for telemetry. */
  origin(): Origin | undefined;
  /** Whom per-client limits count (see http/rate-limit.ts, clientKey). */
  key(): string;
}

export type RawInput =
  /** Input that is already structured (MCP arguments, an order's `input`); `at` prefixes field names (`input.url`). */
  | { kind: 'value'; value: unknown; at?: string }
  /**
   * A route's request: its query (GET routes) and its body (POST routes), read only when the method
   * matches the route; `undefined` for a body over the size limit.
   */
  | { kind: 'http'; query(): Record<string, string>; body(): Promise<string | undefined> };

/** The payment a call presents, in neutral form; none at all is an unpaid call. */
export interface PresentedPayment {
  /** An x402 PaymentPayload, or the quote error to answer when the door could not decode one. */
  x402?: { payload: PaymentPayload } | { malformed: string };
  /** An MPP credential (`Authorization: Payment …`); only products that take MPP on this door read it. */
  mpp?: MppCredential;
}

export interface MppCredential {
  /** The whole `Authorization` value carrying the `Payment` scheme. */
  authorization: string;
  /** `Idempotency-Key`, when the caller sent one. */
  idempotencyKey?: string;
}

/** The x402 terms of a product at a door, built only in the form the door sends. */
export interface Quote {
  /** Why the terms are sent (a refused payment, input that would be rejected); none for a plain quote. */
  error?: string;
  /** As an object (MCP puts it in `structuredContent`). */
  terms(): PaymentRequired;
  /** Ready for the `PAYMENT-REQUIRED` header and the identical body. */
  encoded(): EncodedQuote;
}

/** What the checkout decided; each door only encodes it. */
export type CheckoutResult =
  /** Payment required: the terms (402). `settlement` when a failed settlement answered; `offerMpp`: the MPP challenge goes beside. */
  | { kind: 'quote'; product: AvailableProduct; quote: Quote; settlement?: SettleResponse; offerMpp: boolean }
  /** Nothing was charged. `message`: one plain sentence for doors that show text; `allow`: methods a 405 names. */
  | { kind: 'problem'; problem: Problem; message: string; retryAfter?: number; allow?: readonly string[] }
  /** The route-scoped proof is missing or wrong: its PROOF-REQUEST (401), `error` saying why. */
  | { kind: 'proof_required'; route: string; request: ProofRequest & { error: string } }
  /** An MPP credential refused, with a fresh challenge (paymentauth.org problem types). */
  | { kind: 'mpp_problem'; problem: MppProblem }
  /**
   * Paid and answered. `paymentKey`: the payment a door reports through `gate.undelivered` when the answer
   * does not reach the caller (none for a stored MPP idempotent answer handed out again); `receipt`: MPP
   * Tempo's own receipt.
   */
  | { kind: 'served'; rail: 'x402' | 'mpp'; output: unknown; settlement: SettleResponse; paymentKey?: string; receipt?: Receipt.Receipt; replay?: true }
  /** A free-tier call answered for a proven wallet, with its free calls left today when counted. */
  | { kind: 'free'; output: unknown; wallet: string; remaining?: number };

export type ProblemResult = Extract<CheckoutResult, { kind: 'problem' }>;
