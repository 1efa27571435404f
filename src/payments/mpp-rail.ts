import type { FacilitatorClient } from '@x402/core/server';
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { Challenge, Credential, Errors, Receipt, type Store } from 'mppx';
import { challengeHash, type AuthorizationPayload } from 'mppx/evm';
import { Mppx, evm, tempo } from 'mppx/server';
import { createClient, formatUnits, getAddress, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo as tempoMainnet, tempoModerato } from 'viem/tempo/chains';
import type { PaymentFailure } from './failures.ts';

/**
 * MPP, the `Payment` HTTP authentication scheme (paymentauth.org), as a second rail beside x402.
 *
 * Challenges and credentials go through mppx (`evm` method, `charge` intent, EIP-3009
 * `authorization` credentials): challenge ids are HMAC-SHA256 over the challenge's contents with
 * the shared `secretKey`, so any instance verifies what another issued. A verified credential is
 * re-wrapped as the x402 `exact` PaymentPayload it is byte for byte (same EIP-712 message, same
 * signature), so the payment gate reserves, verifies and settles it through the x402 facilitator
 * like any x402 payment, after the product ran, under the same replay key
 * `eip3009:<network>:<asset>:<from>:<nonce>`. The EIP-3009 nonce of an MPP credential is
 * keccak256(challenge id ‖ realm), which binds the signature to one challenge.
 */

/** Single use of challenges across instances: the lead implements it in the shared database. */
export interface ChallengeLedger {
  /** Records `id` as used until `expiresAt`; false if it was already recorded. Must be atomic. */
  consume(id: string, expiresAt: Date): Promise<boolean>;
}

/** The door a challenge is issued for; a credential only pays the door its challenge names. */
export interface MppRoute {
  /** HTTP method (`GET`), or the surface for non-HTTP doors (`MCP`). */
  method: string;
  /** Path without query (`/api/v1/paid/time`), or the tool name. */
  path: string;
  /** Optional product/door id, bound as well (`time:http`). */
  id?: string;
}

/** What a request must supply for verification when it is not a `Request`. */
export interface MppRequestLike {
  /** The raw `Authorization` header value (may hold several schemes), or null/undefined. */
  authorization: string | null | undefined;
  method?: string;
  path?: string;
}

/** RFC 9457 problem details with the paymentauth.org problem types, plus the fresh challenge to send. */
export interface MppProblem {
  status: number;
  /** `https://paymentauth.org/problems/…`, exactly as mppx's `Errors` define them. */
  type: string;
  title: string;
  detail: string;
  hint?: string;
  /** Id of the fresh challenge in `wwwAuthenticate` (the problem member mppx sends). */
  challengeId: string;
  /** `WWW-Authenticate` value with a fresh challenge for the same door and amount. */
  wwwAuthenticate: string;
}

export type MppVerifyResult = MppVerifiedEvm | MppVerifiedTempo | { ok: false; problem: MppProblem };

export interface MppVerifiedEvm {
  ok: true;
  method: 'evm';
  /** The x402 `exact` payload the credential is: hand it to the payment gate like an x402 payment. */
  payload: PaymentPayload;
  /** The requirements it was checked against (same shape as the x402 rail's quote). */
  requirements: PaymentRequirements;
  challengeId: string;
  expiresAt: Date;
  payer: Hex;
  /** `did:pkh:eip155:<chainId>:<payer>` */
  source: string;
}

/** A Tempo credential: validated (not broadcast); `settle()` broadcasts it after the product ran. */
export interface MppVerifiedTempo {
  ok: true;
  method: 'tempo';
  challengeId: string;
  expiresAt: Date;
  source?: string;
  /** What the ledger records for it: Tempo's CAIP-2 network, token, recipient, atomic amount, payer. */
  terms: { network: string; scheme: 'mpp-tempo'; asset: string; payTo: string; amount: string; payer?: string };
  settle(): Promise<Receipt.Receipt>;
}

/** Production Tempo charge (TIP-20 on Tempo), settled by mppx itself rather than the x402 facilitator. */
export interface TempoRailConfig {
  /** Address that receives the payments. */
  recipient: Hex;
  /** Tempo testnet (Moderato, chain 42431) instead of mainnet (4217). */
  testnet?: boolean;
  /** Explicit chain id; defaults from `testnet`. */
  chainId?: number;
  /** TIP-20 token; defaults to mppx's default (USDC.e on mainnet, pathUSD on testnet). */
  currency?: Hex;
  /** Token decimals; TIP-20 stablecoins use 6. */
  decimals?: number;
  /** RPC URL; defaults to mppx's (rpc.tempo.xyz / rpc.moderato.tempo.xyz). */
  rpcUrl?: string;
  /** Server-side fee payer (sponsors the client's gas). Never logged. */
  feePayerKey?: Hex;
  /** Shared atomic store for mppx's transaction-hash replay markers; per-process memory if omitted. */
  store?: Store.AtomicStore;
}

export interface MppRailOptions {
  /** HMAC key for challenge ids, shared by every instance; at least 32 bytes. */
  secretKey: string;
  /** Protection space: the public API host (e.g. `api.percall.dev`). Bound into ids and EIP-3009 nonces. */
  realm: string;
  network: Network;
  /** EIP-155 chain id; must agree with `network` when both are given. */
  chainId?: number;
  asset: Hex;
  /** EIP-712 domain of the token (EIP-3009). */
  assetName: string;
  assetVersion: string;
  decimals: number;
  payTo: Hex;
  /** Single use of challenge ids across instances. */
  challenges: ChallengeLedger;
  /** Challenge lifetime; also the signed authorization's `validBefore`. Default 300. */
  expiresInSeconds?: number;
  /**
   * `maxTimeoutSeconds` of the x402 requirements the payload carries. Set it to the x402 offer's
   * value so the payload matches the x402 quote (`X402Rail.match`). Default 300.
   */
  maxTimeoutSeconds?: number;
  /** Only for `settle()`: the gate settles through its own resource server. */
  facilitator?: FacilitatorClient;
  /** Also offer the `tempo` method. */
  tempo?: TempoRailConfig;
}

/** The paymentauth.org problem kinds the rail reports, by the last segment of their type URI. */
export type MppProblemKind =
  | 'payment-required'
  | 'malformed-credential'
  | 'invalid-challenge'
  | 'invalid-payload'
  | 'verification-failed'
  | 'payment-expired'
  | 'payment-insufficient'
  | 'method-unsupported'
  | 'bad-request'
  | 'internal-payment-error';

export const PAYMENT_RECEIPT_HEADER = 'Payment-Receipt';
export const WWW_AUTHENTICATE_HEADER = 'WWW-Authenticate';

const DEFAULT_EXPIRES_IN_SECONDS = 300;
const TEMPO_MAINNET = 4217;
const TEMPO_TESTNET = 42431;

export class MppRail {
  private readonly evmServer;
  private readonly tempoServer;
  private readonly chainId: number;
  private readonly expiresInSeconds: number;
  private readonly maxTimeoutSeconds: number;

  constructor(private readonly options: MppRailOptions) {
    const chainId = chainIdOf(options.network);
    if (options.chainId !== undefined && options.chainId !== chainId) {
      throw new Error(`MPP chainId ${options.chainId} does not match network ${options.network}`);
    }
    this.chainId = chainId;
    this.expiresInSeconds = options.expiresInSeconds ?? DEFAULT_EXPIRES_IN_SECONDS;
    this.maxTimeoutSeconds = options.maxTimeoutSeconds ?? DEFAULT_EXPIRES_IN_SECONDS;
    if (!(this.expiresInSeconds > 0)) throw new Error('MPP expiresInSeconds must be positive');

    this.evmServer = Mppx.create({
      secretKey: options.secretKey,
      realm: options.realm,
      methods: [
        evm.charge({
          currency: options.asset,
          recipient: options.payTo,
          chainId,
          decimals: options.decimals,
          authorization: { name: options.assetName, version: options.assetVersion },
          // Never used on the gate's path (it settles through the resource server); only by mppx's
          // own broadcastCredential. A custom settle also keeps mppx's validation local (no facilitator call).
          settle: async ({ payload, request }) => {
            const settled = await this.settleWith(payload, BigInt(request.amount));
            return { reference: settled.transaction };
          },
        }),
      ],
    });
    this.tempoServer = options.tempo
      ? Mppx.create({ secretKey: options.secretKey, realm: options.realm, methods: [createTempoCharge(options.tempo)] })
      : undefined;
  }

  /** The CAIP-2 networks payments of this rail settle on (evm, then Tempo when offered). */
  get networks(): readonly string[] {
    const tempo = this.options.tempo;
    if (!tempo) return [this.options.network];
    return [this.options.network, `eip155:${tempo.chainId ?? (tempo.testnet ? TEMPO_TESTNET : TEMPO_MAINNET)}`];
  }

  /** The payment methods offered in challenges. */
  get methods(): readonly ('evm' | 'tempo')[] {
    return this.tempoServer ? ['evm', 'tempo'] : ['evm'];
  }

  /** Fresh challenges for a door and amount (atomic units): one per method, evm first. */
  async challenges(route: MppRoute, amountAtomic: bigint, description?: string): Promise<Challenge.Challenge[]> {
    assertAmount(amountAtomic);
    const expires = new Date(Date.now() + this.expiresInSeconds * 1000).toISOString();
    const common = { description, expires, ...binding(route) };
    const challenges = [await this.evmServer.challenge.evm.charge({ ...common, amount: formatUnits(amountAtomic, this.options.decimals) })];
    if (this.tempoServer && this.options.tempo) {
      const amount = formatUnits(amountAtomic, this.options.tempo.decimals ?? 6);
      challenges.push(await this.tempoServer.challenge.tempo.charge({ ...common, amount }));
    }
    return challenges;
  }

  /** The `WWW-Authenticate` value: every challenge, comma-separated (RFC 9110 §11.6.1). */
  async challengeHeader(route: MppRoute, amountAtomic: bigint, description?: string): Promise<string> {
    return (await this.challenges(route, amountAtomic, description)).map((c) => Challenge.serialize(c)).join(', ');
  }

  /**
   * Checks the `Authorization: Payment …` credential of a retry: encoding, challenge HMAC, expiry,
   * that the challenge names this door and amount, the EIP-3009 signature and terms (recipient,
   * value, nonce = challenge hash, validity window), then consumes the challenge id. Nothing is
   * broadcast. Throws only when the challenge ledger fails.
   */
  async verify(input: Pick<Request, 'headers'> | MppRequestLike, route: MppRoute, amountAtomic: bigint, description?: string): Promise<MppVerifyResult> {
    const fail = async (error: Errors.PaymentError) => ({ ok: false as const, problem: await this.problem(error, route, amountAtomic, description) });
    const header = 'headers' in input ? input.headers.get('authorization') : input.authorization;
    const payment = header ? Credential.extractPaymentScheme(header) : null;
    if (!payment) return fail(new Errors.PaymentRequiredError({ description }));

    let credential: Credential.Credential;
    try {
      credential = Credential.deserialize(payment);
    } catch {
      return fail(new Errors.MalformedCredentialError({ reason: 'invalid base64url or JSON' }));
    }

    const isTempo = credential.challenge.method === 'tempo' && this.tempoServer !== undefined;
    const { scope, meta } = binding(route);
    const decimals = isTempo ? (this.options.tempo!.decimals ?? 6) : this.options.decimals;
    const verifyOptions = { scope, meta, realm: this.options.realm, request: { amount: formatUnits(amountAtomic, decimals) } };

    let validation;
    try {
      validation = isTempo
        ? await this.tempoServer!.validateCredential(credential, verifyOptions)
        : await this.evmServer.validateCredential(credential, verifyOptions);
    } catch (error) {
      return fail(toPaymentError(error));
    }

    // The service settles only after the product succeeded, so it must be the one to broadcast:
    // a Tempo transaction the client already sent (push) or a zero-amount proof is refused.
    if (isTempo && (validation.details as { mode?: string } | undefined)?.mode !== 'pull') {
      return fail(new Errors.VerificationFailedError({ reason: 'send the signed Tempo transaction for the server to broadcast after the call succeeds, not a transaction hash' }));
    }

    const challengeId = credential.challenge.id;
    const expiresAt = new Date(credential.challenge.expires!);
    if (!(await this.options.challenges.consume(challengeId, expiresAt))) {
      return fail(new Errors.InvalidChallengeError({ id: challengeId, reason: 'challenge has already been used' }));
    }

    if (isTempo) {
      const server = this.tempoServer!;
      const request = validation.request as { currency?: string; recipient?: string; methodDetails?: { chainId?: number } };
      const chainId = request.methodDetails?.chainId ?? this.options.tempo!.chainId ?? (this.options.tempo!.testnet ? TEMPO_TESTNET : TEMPO_MAINNET);
      const payer = validation.source?.split(':').at(-1);
      return {
        ok: true,
        method: 'tempo',
        challengeId,
        expiresAt,
        source: validation.source,
        terms: { network: `eip155:${chainId}`, scheme: 'mpp-tempo', asset: request.currency ?? '', payTo: request.recipient ?? this.options.tempo!.recipient, amount: amountAtomic.toString(), ...(payer ? { payer } : {}) },
        settle: () => server.broadcastCredential(credential, verifyOptions),
      };
    }
    const authorization = validation.credential.payload as AuthorizationPayload;
    const { payload, requirements } = this.toX402(authorization, amountAtomic);
    const payer = getAddress(authorization.from);
    return { ok: true, method: 'evm', payload, requirements, challengeId, expiresAt, payer, source: validation.source ?? `did:pkh:eip155:${this.chainId}:${payer}` };
  }

  /** The x402 requirements an MPP charge of `amountAtomic` corresponds to (same shape as the x402 rail's quote). */
  requirements(amountAtomic: bigint): PaymentRequirements {
    return {
      scheme: 'exact',
      network: this.options.network,
      asset: this.options.asset,
      amount: amountAtomic.toString(),
      payTo: this.options.payTo,
      maxTimeoutSeconds: this.maxTimeoutSeconds,
      extra: { name: this.options.assetName, version: this.options.assetVersion },
    };
  }

  /** An EIP-3009 authorization credential as the x402 `exact` payload with the same signature. */
  toX402(authorization: AuthorizationPayload, amountAtomic: bigint): { payload: PaymentPayload; requirements: PaymentRequirements } {
    const requirements = this.requirements(amountAtomic);
    const payload: PaymentPayload = {
      x402Version: 2,
      accepted: requirements,
      payload: {
        authorization: {
          from: authorization.from,
          to: authorization.to,
          value: authorization.value,
          validAfter: authorization.validAfter,
          validBefore: authorization.validBefore,
          nonce: authorization.nonce,
        },
        signature: authorization.signature,
      },
    };
    return { payload, requirements };
  }

  /** Settles a verified evm credential through the configured facilitator (outside the gate). */
  async settle(verified: MppVerifiedEvm): Promise<SettleResponse> {
    if (!this.options.facilitator) throw new Error('MppRail.settle needs a facilitator');
    return this.options.facilitator.settle(verified.payload, verified.requirements);
  }

  private async settleWith(authorization: AuthorizationPayload, amountAtomic: bigint): Promise<SettleResponse> {
    if (!this.options.facilitator) throw new Errors.InternalPaymentError();
    const { payload, requirements } = this.toX402(authorization, amountAtomic);
    const settled = await this.options.facilitator.settle(payload, requirements);
    if (!settled.success) throw new Errors.VerificationFailedError({ reason: settled.errorReason ?? 'settlement failed' });
    return settled;
  }

  /** A problem (mppx error or kind) for this door, with a fresh challenge to send beside it. */
  async problem(error: Errors.PaymentError | MppProblemKind, route: MppRoute, amountAtomic: bigint, description?: string, detail?: string): Promise<MppProblem> {
    const paymentError = typeof error === 'string' ? paymentErrorOf(error, detail, description) : error;
    const challenges = await this.challenges(route, amountAtomic, description);
    const details = paymentError.toProblemDetails(challenges[0]!.id);
    return {
      status: details.status,
      type: details.type,
      title: details.title,
      detail: details.detail,
      ...(details.hint ? { hint: details.hint } : {}),
      challengeId: challenges[0]!.id,
      wwwAuthenticate: challenges.map((c) => Challenge.serialize(c)).join(', '),
    };
  }

  /** The problem for a payment the gate refused after `verify` accepted the credential. */
  gateFailureProblem(failure: PaymentFailure, route: MppRoute, amountAtomic: bigint, description?: string): Promise<MppProblem> {
    return this.problem(gateFailureKind(failure), route, amountAtomic, description, failure.reason);
  }

  /** mppx's Receipt for a settlement (evm: the x402 facilitator's transaction hash). */
  receipt(settlement: SettleResponse | Receipt.Receipt, timestamp: Date = new Date()): Receipt.Receipt {
    if ('reference' in settlement) return Receipt.from(settlement);
    return Receipt.from({ method: 'evm', reference: settlement.transaction, status: 'success', timestamp: timestamp.toISOString() });
  }

  /** The `Payment-Receipt` header value. */
  receiptHeader(settlement: SettleResponse | Receipt.Receipt, timestamp?: Date): string {
    return Receipt.serialize(this.receipt(settlement, timestamp));
  }

  /** Headers of a paid response: the receipt and `Cache-Control: private` (merged into an existing value). */
  successHeaders(settlement: SettleResponse | Receipt.Receipt, cacheControl?: string | null): Record<string, string> {
    return { [PAYMENT_RECEIPT_HEADER]: this.receiptHeader(settlement), 'Cache-Control': withPrivate(cacheControl) };
  }
}

/** True when an `Authorization` value carries a `Payment` credential (route it to MPP). */
export function hasPaymentCredential(authorization: string | null | undefined): boolean {
  return !!authorization && Credential.extractPaymentScheme(authorization) !== null;
}

/** The RFC 9457 body (as mppx writes it) for a problem. */
export function problemBody(problem: MppProblem): Record<string, unknown> {
  const { type, title, status, detail, hint, challengeId } = problem;
  return { type, title, status, detail, ...(hint ? { hint } : {}), challengeId };
}

/** Headers of a problem response: the fresh challenge, `no-store`, `application/problem+json`. */
export function problemHeaders(problem: MppProblem): Record<string, string> {
  return { [WWW_AUTHENTICATE_HEADER]: problem.wwwAuthenticate, 'Cache-Control': 'no-store', 'Content-Type': 'application/problem+json' };
}

export function problemResponse(problem: MppProblem): Response {
  return new Response(JSON.stringify(problemBody(problem)), { status: problem.status, headers: problemHeaders(problem) });
}

/** The Tempo charge server method from config. */
export function createTempoCharge(config: TempoRailConfig) {
  const chainId = config.chainId ?? (config.testnet ? TEMPO_TESTNET : TEMPO_MAINNET);
  const chain = chainId === TEMPO_TESTNET ? tempoModerato : tempoMainnet;
  const rpcUrl = config.rpcUrl;
  return tempo.charge({
    recipient: config.recipient,
    chainId,
    decimals: config.decimals ?? 6,
    ...(config.currency ? { currency: config.currency } : {}),
    ...(config.testnet ? { testnet: true } : {}),
    ...(config.feePayerKey ? { feePayer: privateKeyToAccount(config.feePayerKey) } : {}),
    ...(config.store ? { store: config.store } : {}),
    ...(rpcUrl ? { getClient: ({ chainId: id }: { chainId?: number }) => createClient({ chain: { ...chain, id: id ?? chain.id }, transport: http(rpcUrl) }) } : {}),
  });
}

/**
 * Tempo config from the environment; undefined (Tempo off) unless `MPP_TEMPO_RECIPIENT` is set.
 * `MPP_TEMPO_TESTNET=1`, `MPP_TEMPO_CHAIN_ID`, `MPP_TEMPO_CURRENCY`, `MPP_TEMPO_RPC_URL`,
 * `MPP_TEMPO_FEE_PAYER_KEY` are optional.
 */
export function tempoConfigFromEnv(env: Record<string, string | undefined>): TempoRailConfig | undefined {
  const recipient = env.MPP_TEMPO_RECIPIENT;
  if (!recipient) return undefined;
  const address = (value: string, name: string): Hex => {
    if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new Error(`${name} must be a 0x address`);
    return value as Hex;
  };
  const chainId = env.MPP_TEMPO_CHAIN_ID ? Number(env.MPP_TEMPO_CHAIN_ID) : undefined;
  if (chainId !== undefined && !Number.isSafeInteger(chainId)) throw new Error('MPP_TEMPO_CHAIN_ID must be an integer');
  const feePayerKey = env.MPP_TEMPO_FEE_PAYER_KEY;
  if (feePayerKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(feePayerKey)) throw new Error('MPP_TEMPO_FEE_PAYER_KEY must be a 32-byte hex key');
  return {
    recipient: address(recipient, 'MPP_TEMPO_RECIPIENT'),
    testnet: env.MPP_TEMPO_TESTNET === '1' || env.MPP_TEMPO_TESTNET === 'true',
    ...(chainId !== undefined ? { chainId } : {}),
    ...(env.MPP_TEMPO_CURRENCY ? { currency: address(env.MPP_TEMPO_CURRENCY, 'MPP_TEMPO_CURRENCY') } : {}),
    ...(env.MPP_TEMPO_RPC_URL ? { rpcUrl: env.MPP_TEMPO_RPC_URL } : {}),
    ...(feePayerKey ? { feePayerKey: feePayerKey as Hex } : {}),
  };
}

/** The nonce an MPP evm credential signs for a challenge: keccak256(id ‖ realm). */
export function challengeNonce(challenge: { id: string; realm: string }): Hex {
  return challengeHash(challenge);
}

function binding(route: MppRoute): { scope: string; meta?: Record<string, string> } {
  return { scope: `${route.method.toUpperCase()} ${route.path}`, ...(route.id ? { meta: { route: route.id } } : {}) };
}

function chainIdOf(network: Network): number {
  const match = /^eip155:(\d+)$/.exec(network);
  if (!match) throw new Error(`MPP evm needs an eip155 network, got ${network}`);
  return Number(match[1]);
}

function assertAmount(amount: bigint): void {
  if (amount <= 0n) throw new RangeError('MPP charge amount must be positive');
}

/** `private` added to a Cache-Control value (a paid response must not be served from a shared cache); `public` dropped. */
function withPrivate(value: string | null | undefined): string {
  const directives = (value ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d && d.toLowerCase() !== 'public');
  if (!directives.some((d) => d.toLowerCase() === 'private')) directives.push('private');
  return directives.join(', ');
}

function toPaymentError(error: unknown): Errors.PaymentError {
  if (error instanceof Errors.PaymentError) return error;
  // mppx rethrows the schema error when the payload does not parse (it reports InvalidPayloadError).
  if (error instanceof Error && (error.name === 'ZodError' || error.name === '$ZodError')) return new Errors.InvalidPayloadError();
  return new Errors.VerificationFailedError({ reason: 'the credential could not be validated' });
}

function paymentErrorOf(kind: MppProblemKind, detail: string | undefined, description: string | undefined): Errors.PaymentError {
  switch (kind) {
    case 'payment-required':
      return new Errors.PaymentRequiredError({ description });
    case 'malformed-credential':
      return new Errors.MalformedCredentialError({ reason: detail });
    case 'invalid-challenge':
      return new Errors.InvalidChallengeError({ reason: detail });
    case 'invalid-payload':
      return new Errors.InvalidPayloadError({ reason: detail });
    case 'verification-failed':
      return new Errors.VerificationFailedError({ reason: detail });
    case 'payment-expired':
      return new Errors.PaymentExpiredError({});
    case 'payment-insufficient':
      return new Errors.PaymentInsufficientError({ reason: detail });
    case 'method-unsupported':
      return new Errors.PaymentMethodUnsupportedError({ method: detail });
    case 'bad-request':
      return new Errors.BadRequestError({ reason: detail });
    case 'internal-payment-error':
      return new Errors.InternalPaymentError();
  }
}

const EXPIRED_REASONS = new Set(['payment_authorization_expired', 'invalid_exact_evm_payload_authorization_valid_before']);
const USED_REASONS = new Set(['payment_already_used', 'payment_already_in_progress']);

function gateFailureKind(failure: PaymentFailure): MppProblemKind {
  if (USED_REASONS.has(failure.reason)) return 'invalid-challenge';
  if (EXPIRED_REASONS.has(failure.reason)) return 'payment-expired';
  if (failure.category === 'payment_processing_error') return 'internal-payment-error';
  return 'verification-failed';
}
