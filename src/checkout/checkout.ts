import type { PaymentRequirements } from '@x402/core/types';
import type { Catalogue } from '../catalogue/index.ts';
import { pricedAt, pricedForInput } from '../products/kit/price-by-input.ts';
import { ProductInputError, type AvailableProduct, type Product, type Surface } from '../catalogue/types.ts';
import type { ProofVerifier } from '../identity/proof-request.ts';
import type { Logger } from '../log.ts';
import type { FreeTierDoor } from '../payments/free-tier.ts';
import { endpointKey, type GateResult, type PaymentGate } from '../payments/gate.ts';
import type { MppRail } from '../payments/mpp/index.ts';
import { paymentKey } from '../payments/payment-key.ts';
import { encodeQuote, type X402Rail } from '../payments/x402-rail.ts';
import { atomicToUsd } from '../money.ts';
import type { Store } from '../store/types.ts';
import type { Telemetry } from '../telemetry/counters.ts';
import { parseJsonBody, validate, type InputResult } from './input.ts';
import { mppPaidCall } from './mpp.ts';
import { gateProblem, problemResult, productFailure, rateLimited } from './outcome.ts';
import { problems, type FieldError, type Problem } from './problems.ts';
import type { Caller, CheckoutRequest, CheckoutResult, Door, PresentedPayment, ProblemResult, Quote } from './types.ts';

/** Per-client limits of free requests that create state (see http/rate-limit.ts). */
export interface ClientLimits {
  /** Counts one request; the problem and its seconds to wait when over the limit. */
  check(bucket: 'proof' | 'free', client: string): Promise<{ problem: Problem; retryAfter: number } | undefined>;
}

export interface CheckoutDeps {
  catalogue: Pick<Catalogue, 'products' | 'byToolName'>;
  rail: Pick<X402Rail, 'ready' | 'paymentRequired' | 'encodedPaymentRequired'> & Partial<Pick<X402Rail, 'prepare'>>;
  gate: Pick<PaymentGate, 'execute' | 'executeExternal' | 'claimIdempotency' | 'finishIdempotency'>;
  store: Pick<Store, 'healthy' | 'paymentState'>;
  freeTier: Pick<FreeTierDoor, 'serve' | 'challenge'>;
  proofs: Pick<ProofVerifier, 'check' | 'proofRequest' | 'whileHeld'>;
  limits: ClientLimits;
  telemetry: Pick<Telemetry, 'challenge' | 'failure'>;
  log: Logger;
  maxBodyBytes: number;
  /** The MPP rail, when this instance offers it. */
  mpp?: Pick<MppRail, 'verify' | 'gateFailureProblem'>;
  /** Whether a product takes MPP on its route on this instance (declared so, and priced above the network minimum). */
  mppAccepts?(product: AvailableProduct): boolean;
  /** The product's refusal of valid input before payment (products/runner.ts precheck), for products that declare one. */
  precheck?(product: AvailableProduct, input: unknown): Promise<ProductInputError | undefined>;
  /** The price of valid input now, for products that declare a dynamic price (products/runner.ts); throws as the product does. */
  dynamicPrice?(product: AvailableProduct, input: unknown): Promise<string>;
}

/** Methods that always get the 402 quote on a route (crawlers read prices with any of them). */
const QUOTED_METHODS = new Set(['GET', 'HEAD', 'POST']);

/** What a request carries once read: the JSON a proof is checked over, and the validated input. */
interface ReadInput {
  /** The body (or value) as JSON, whether or not it fits the schema; undefined when there is none. */
  json?: unknown;
  /** Undefined when the method does not carry the route's input. */
  input?: InputResult;
  /** Prefix of field names (an order's `input`). */
  at?: string;
  /** Valid input the product refused before payment (its precheck): answered as its run would, nothing charged. */
  refusal?: ProductInputError;
  /** The product at the price its dynamic price found for this input. */
  priced?: AvailableProduct;
  /** No dynamic price could be had (an upstream failed): answered as the product's failure, nothing to sign. */
  failure?: unknown;
}

/** One paid call on its way, after the product and its input are known. */
interface Sale {
  request: CheckoutRequest;
  product: Product;
  read: ReadInput;
  /** The method is the route's own (HEAD stands for GET); always true off routes. */
  methodMatches: boolean;
}

/**
 * The one paid-call flow behind every door (routes, orders, the MPP door, MCP tools), in one order:
 * method, the tool's arguments, route-scoped proof, availability (501), readiness (503), then free
 * tier or quote for an unpaid call, input validation and the gate for a paid one. It answers with a
 * neutral result (types.ts) that each door encodes; see README, "How a paid call works".
 */
export class Checkout {
  constructor(private readonly deps: CheckoutDeps) {}

  async decide(request: CheckoutRequest): Promise<CheckoutResult> {
    const product = 'named' in request.product ? this.lookup(request.product.named) : request.product;
    if (!product) {
      return problemResult(problems.invalidInput([{ field: 'product', message: 'name a product on sale (its id or MCP tool name; see /.well-known/x402.json)' }]));
    }
    const { door, method } = request;
    const declared = product.http?.method;
    if (door.kind === 'route' && !QUOTED_METHODS.has(method ?? '')) return methodNotAllowed(method ?? '', declared!);
    const methodMatches = door.kind !== 'route' || method === declared || (method === 'HEAD' && declared === 'GET') || (method === 'GET' && product.http?.queryToo === true);
    const read = await this.read(request, product, methodMatches);
    // A product priced by its input is sold (quoted, matched, charged) at the price of this input.
    const sale: Sale = { request, product: read.priced ?? (read.input?.ok ? pricedForInput(product, read.input.value) : product), read, methodMatches };
    // MCP answers bad arguments as a protocol error, before proof or payment: nothing is signed in vain.
    if (door.kind === 'tool' && read.input && !read.input.ok) return this.inputProblem(read.input, read.at);
    if (door.kind === 'tool' && read.refusal) return productFailure(product, labelOf(product, door), read.refusal, this.deps.log);
    if (!product.requiresProof) return this.sell(sale);
    if (door.kind === 'order') {
      return problemResult(problems.invalidInput([{ field: 'product', message: `${product.id} needs a route-scoped proof: call ${product.http!.path}` }]));
    }
    // The proof comes before everything else, payment included: without it, 401 and nothing charged. A
    // paid call holds the proof's nonce: spent only if it is served, given back otherwise.
    const paid = request.payment.x402 !== undefined || this.mppCredential(product, door, request.payment) !== undefined;
    const proof = await this.proof(product, read.json, paid, request.caller);
    if ('kind' in proof) return proof;
    return this.deps.proofs.whileHeld(proof.held, () => this.sell(sale), (result) => result.kind === 'served');
  }

  /** Availability, readiness, then the unpaid or the paid path. */
  private async sell(sale: Sale): Promise<CheckoutResult> {
    const { request, product, read } = sale;
    const { door, payment, caller } = request;
    if (product.status !== 'available') return problemResult(problems.notImplemented(product.id, product.reason));
    const unready = this.readiness();
    if (unready) return unready;
    if (read.failure !== undefined) return productFailure(product, labelOf(product, door), read.failure, this.deps.log);

    const surface: Surface = door.kind === 'tool' || (door.kind === 'order' && !product.http) ? 'mcp' : 'http';
    const resource = resourceOf(door, product, request.publicOrigin);
    const endpoint = door.kind === 'order' ? `POST ${door.path}` : endpointKey(product, surface);
    const quote = (error?: string, accepts?: PaymentRequirements[]) => this.quote(product, surface, door, resource, request.publicOrigin, error, accepts);
    const mpp = this.mppCredential(product, door, payment);
    const x402 = payment.x402;
    if (mpp && x402) return problemResult(problems.badRequest('send one payment: PAYMENT-SIGNATURE (x402) or Authorization: Payment (MPP), not both'));

    if (!x402 && !mpp) {
      const claim = request.freeClaim;
      if (product.freeTier && claim && door.kind !== 'order' && sale.methodMatches && request.method !== 'HEAD') {
        const limited = await this.deps.limits.check('free', caller.key());
        if (limited) return rateLimited('free', limited);
        return this.free(product, read, claim, resource, request, quote);
      }
      this.deps.telemetry.challenge(endpoint, caller.origin());
      // Always the quote; if the input would be rejected, say so now so nobody signs a doomed payment.
      const inputError = read.input && !read.input.ok ? `${read.input.code ?? 'invalid_input'}: ${fieldList(read.input.errors, read.at)}` : read.refusal ? refusalError(read.refusal, read.at) : undefined;
      // The MCP transport names the reason of every payment-required result.
      const error = inputError ?? (door.kind === 'tool' ? 'payment_required' : undefined);
      return { kind: 'quote', product, quote: quote(error), offerMpp: door.kind === 'route' && this.takesMpp(product) };
    }
    if (!sale.methodMatches || request.method === 'HEAD') return methodNotAllowed(request.method ?? '', product.http!.method);
    const input = read.input!;
    if (mpp) {
      if (!input.ok) return this.inputProblem(input, read.at);
      if (read.refusal) return productFailure(product, labelOf(product, door), read.refusal, this.deps.log);
      return mppPaidCall({ ...this.deps, mpp: this.deps.mpp! }, product, input.value, mpp, caller.origin());
    }
    const presented = x402!;
    if ('malformed' in presented) {
      this.deps.telemetry.failure(endpoint, 'payment_processing_error', presented.malformed.split(':')[0]!, undefined);
      return { kind: 'quote', product, quote: quote(presented.malformed), offerMpp: false };
    }
    if (!input.ok) return this.inputProblem(input, read.at);
    if (read.refusal) return productFailure(product, labelOf(product, door), read.refusal, this.deps.log);
    const result = await this.deps.gate.execute({ product, surface, payload: presented.payload, resource, input: input.value, origin: caller.origin(), endpoint });
    return this.outcome(result, product, door, quote);
  }

  /** The x402 gate's answer: served, the terms again with the reason (and a failed settlement), or a problem. */
  private outcome(result: GateResult, product: AvailableProduct, door: Door, quote: (error?: string, accepts?: PaymentRequirements[]) => Quote): CheckoutResult {
    switch (result.status) {
      case 'served':
        return { kind: 'served', rail: 'x402', output: result.output, settlement: result.settlement, paymentKey: result.paymentKey, ...(result.replay ? { replay: true as const } : {}) };
      case 'payment_failed':
        return { kind: 'quote', product, quote: quote(result.failure.reason, result.failure.accepts), ...(result.settlement ? { settlement: result.settlement } : {}), offerMpp: false };
      default:
        return gateProblem(result, product, labelOf(product, door), this.deps.log);
    }
  }

  /** A free-tier call: the wallet proof instead of a payment. */
  private async free(
    product: AvailableProduct,
    read: ReadInput,
    claim: NonNullable<CheckoutRequest['freeClaim']>,
    resource: string,
    request: CheckoutRequest,
    quote: (error?: string) => Quote,
  ): Promise<CheckoutResult> {
    const input = read.input!;
    if (!input.ok) return this.inputProblem(input, read.at);
    if (read.refusal) return productFailure(product, labelOf(product, request.door), read.refusal, this.deps.log);
    const denied = (reason: string): CheckoutResult => ({ kind: 'quote', product, quote: quote(reason), offerMpp: false });
    if ('malformed' in claim) return denied('invalid_siwx_payload');
    const free = await this.deps.freeTier.serve(product, input.value, claim.proof, resource, new URL(request.publicOrigin));
    if (free.status === 'denied') return denied(free.reason);
    if (free.status === 'product_failed') return productFailure(product, labelOf(product, request.door), free.error, this.deps.log);
    return { kind: 'free', output: free.output, wallet: free.wallet, ...(free.remaining !== undefined ? { remaining: free.remaining } : {}) };
  }

  /**
   * Route-scoped proof over the request's JSON (a route's body, a tool's arguments): an unproven call,
   * paid or not, gets a PROOF-REQUEST (a fresh nonce within the client's budget, rate-limited per
   * client). A proven unpaid call goes on to the quote (its nonce stays open for the paid retry); a
   * proven paid call holds the nonce.
   */
  private async proof(product: Product, json: unknown, paid: boolean, caller: Caller): Promise<CheckoutResult | { held?: string }> {
    const route = `${product.http!.method} ${product.http!.path}`;
    const check = json === undefined ? { ok: false as const, reason: 'proof_missing' } : await this.deps.proofs.check(route, json, { hold: paid });
    if (check.ok) return paid ? { held: check.nonce } : {};
    const client = caller.key();
    const limited = await this.deps.limits.check('proof', client);
    if (limited) return rateLimited('proof', limited);
    const request = await this.deps.proofs.proofRequest(route, json ?? {}, client);
    return { kind: 'proof_required', route, request: { ...request, error: check.reason } };
  }

  /** Facilitator and payment database both up, or one answer on every door: 503 with Retry-After. */
  private readiness(): ProblemResult | undefined {
    if (!this.deps.rail.ready) {
      return problemResult(problems.facilitatorUnavailable('the payment facilitator cannot be reached, so no price can be quoted'), { retryAfter: 5 });
    }
    // A payment could not be guarded or recorded now: say so before anyone signs one.
    if (!this.deps.store.healthy) return problemResult(problems.storeUnavailable(), { retryAfter: 5 });
    return undefined;
  }

  /** The request's input, read and validated, then prechecked where the product declares a precheck, then priced where its price is dynamic. */
  private async read(request: CheckoutRequest, product: Product, methodMatches: boolean): Promise<ReadInput> {
    const read = await this.readInput(request, product, methodMatches);
    if (!read.input?.ok || product.status !== 'available') return read;
    if (product.precheck && this.deps.precheck) {
      const refusal = await this.deps.precheck(product, read.input.value);
      if (refusal) return { ...read, refusal };
    }
    if (product.dynamicPrice && this.deps.dynamicPrice) return { ...read, ...(await this.priced(product, read.input.value, request.payment)) };
    return read;
  }

  /**
   * The product at its dynamic price for this input, quoted by the rail; or the refusal or failure that
   * stands instead. A payment already settled (or settling with its outcome unknown) keeps the price it
   * was made at: its result stays redeemable whatever the price is now, or whether it can be found at all.
   */
  private async priced(product: AvailableProduct, input: unknown, payment: PresentedPayment): Promise<Pick<ReadInput, 'priced' | 'refusal' | 'failure'>> {
    try {
      const priced = pricedAt(product, (await this.pricePaid(payment)) ?? (await this.deps.dynamicPrice!(product, input)));
      await this.deps.rail.prepare?.(priced);
      return { priced };
    } catch (error) {
      return error instanceof ProductInputError ? { refusal: error } : { failure: error };
    }
  }

  /**
   * The price an x402 payment this service already holds was made at (its signed terms), when it is
   * settled or pending: it can then only be redeemed, never charged again (see PaymentGate.alreadyReserved).
   */
  private async pricePaid(payment: PresentedPayment): Promise<string | undefined> {
    const x402 = payment.x402;
    if (!x402 || 'malformed' in x402 || !/^\d{1,30}$/.test(x402.payload.accepted?.amount ?? '')) return undefined;
    let key: string;
    try {
      key = paymentKey(x402.payload);
    } catch {
      return undefined; // not a payment this service could have taken: priced as any new one
    }
    const state = await this.deps.store.paymentState(key).catch(() => undefined);
    return state === 'settled' || state === 'pending' ? atomicToUsd(x402.payload.accepted.amount) : undefined;
  }

  /** The request's input: parsed (a route's query or body), then validated against the product's schema. */
  private async readInput(request: CheckoutRequest, product: Product, methodMatches: boolean): Promise<ReadInput> {
    const raw = request.input;
    if (raw.kind === 'value') return { json: raw.value, input: validate(product.input, raw.value), ...(raw.at ? { at: raw.at } : {}) };
    if (!methodMatches) return {};
    if (product.http!.method === 'GET' || request.method === 'GET') return { input: validate(product.input, raw.query()) };
    const text = await raw.body();
    if (text === undefined) return { input: { ok: false, status: 413, errors: [{ field: 'body', message: `larger than ${this.deps.maxBodyBytes} bytes` }] } };
    const json = parseJsonBody(text);
    return json.ok ? { json: json.value, input: validate(product.input, json.value) } : { input: json };
  }

  private inputProblem(input: Extract<InputResult, { ok: false }>, at: string | undefined): ProblemResult {
    if (input.status === 413) return problemResult(problems.tooLarge(this.deps.maxBodyBytes));
    const errors = at ? input.errors.map((e) => ({ field: `${at}.${e.field}`, message: e.message })) : input.errors;
    if (input.status === 422 && input.code) return problemResult(problems.refusedInput(input.code, errors));
    return problemResult(problems.invalidInput(errors));
  }

  /** The x402 terms at this door; products with a free tier also invite a wallet proof (fresh nonce each time). */
  /** The product's terms; `accepts` replaces the quoted ones (a channel's corrective terms). */
  private quote(product: AvailableProduct, surface: Surface, door: Door, resource: string, publicOrigin: string, error?: string, accepts?: PaymentRequirements[]): Quote {
    const { rail, freeTier } = this.deps;
    // Orders sell at the paid price only.
    if (!product.freeTier || door.kind === 'order') {
      if (accepts) {
        const terms = () => ({ ...rail.paymentRequired(product, surface, resource, error), accepts });
        return { ...(error ? { error } : {}), terms, encoded: () => encodeQuote(terms()) };
      }
      return { ...(error ? { error } : {}), terms: () => rail.paymentRequired(product, surface, resource, error), encoded: () => rail.encodedPaymentRequired(product, surface, resource, error) };
    }
    const terms = () => {
      const quoted = rail.paymentRequired(product, surface, resource, error);
      const required = accepts ? { ...quoted, accepts } : quoted;
      const origin = new URL(publicOrigin);
      // The wallet proof names the endpoint it is sent to: the route itself, or the MCP endpoint.
      const endpoint = door.kind === 'tool' ? `${origin.origin}/mcp` : resource;
      return { ...required, extensions: { ...required.extensions, ...freeTier.challenge(resource, origin, endpoint) } };
    };
    return { ...(error ? { error } : {}), terms, encoded: () => encodeQuote(terms()) };
  }

  private lookup(name: unknown): AvailableProduct | undefined {
    if (typeof name !== 'string') return undefined;
    const product = this.deps.catalogue.products.find((p) => p.id === name) ?? this.deps.catalogue.byToolName(name);
    return product?.status === 'available' ? product : undefined;
  }

  private takesMpp(product: AvailableProduct): boolean {
    return Boolean(this.deps.mpp && this.deps.mppAccepts?.(product));
  }

  /** The MPP credential, when this door and product take MPP (routes only); otherwise the call is unpaid by MPP. */
  private mppCredential(product: Product, door: Door, payment: PresentedPayment): PresentedPayment['mpp'] {
    if (!payment.mpp || door.kind !== 'route' || product.status !== 'available') return undefined;
    return this.takesMpp(product) ? payment.mpp : undefined;
  }
}

/** The resource a door quotes (the 402's `resource.url`); an order's names the product, so one product's payment cannot buy another's. */
function resourceOf(door: Door, product: AvailableProduct, publicOrigin: string): string {
  switch (door.kind) {
    case 'route':
      return `${publicOrigin}${product.http!.path}`;
    case 'order':
      return `${publicOrigin}${door.path}?product=${encodeURIComponent(product.id)}`;
    case 'tool':
      return `mcp://tool/${product.mcp!.tool}`;
  }
}

/** How the caller knows the product: its tool name on MCP, its id elsewhere. */
function labelOf(product: Product, door: Door): string {
  return door.kind === 'tool' ? product.mcp!.tool : product.id;
}

function methodNotAllowed(method: string, declared: 'GET' | 'POST'): ProblemResult {
  const allow = declared === 'GET' ? ['GET', 'HEAD'] : ['POST', 'GET', 'HEAD'];
  return problemResult(problems.methodNotAllowed(method, [declared]), { allow });
}

/** A precheck's refusal as the quote's `error`: `invalid_input: query: …` (400) or `<code>: query: …` (422). */
function refusalError(refusal: ProductInputError, at: string | undefined): string {
  const code = refusal.code ?? (refusal.status === 400 ? 'invalid_input' : 'input_rejected');
  return `${code}: ${fieldList([{ field: refusal.field ?? 'body', message: refusal.message }], at)}`;
}

function fieldList(errors: FieldError[], at: string | undefined): string {
  return errors.map((e) => `${at ? `${at}.` : ''}${e.field}: ${e.message}`).join('; ');
}
