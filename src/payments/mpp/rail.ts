import type { Network, PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { Challenge, Credential, Errors, type Receipt } from 'mppx';
import type { AuthorizationPayload } from 'mppx/evm';
import { Mppx } from 'mppx/server/core';
import { formatUnits, getAddress, type Hex } from 'viem';
import type { PaymentFailure } from '../failures.ts';
import { evmCharge, exactRequirements, toX402, type EvmChargeTerms } from './evm-method.ts';
import { gateFailureKind, paymentErrorOf, toPaymentError, type MppProblem, type MppProblemKind } from './problems.ts';
import { tempoChainId, type TempoRailConfig } from './tempo-config.ts';
import type { TempoCharge } from './tempo-method.ts';

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

/** Single use of challenges across instances (the shared store's nonce table, see app.ts). */
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
  /** Also offer the `tempo` method. */
  tempo?: TempoRailConfig;
}

const DEFAULT_EXPIRES_IN_SECONDS = 300;

export class MppRail {
  private readonly evmServer;
  private readonly tempoServer;
  private readonly chainId: number;
  private readonly expiresInSeconds: number;
  private readonly terms: EvmChargeTerms;

  /** The rail, with the Tempo method loaded first when Tempo is offered. */
  static async create(options: MppRailOptions): Promise<MppRail> {
    const tempoCharge = options.tempo ? (await import('./tempo-method.ts')).createTempoCharge(options.tempo) : undefined;
    return new MppRail(options, tempoCharge);
  }

  constructor(
    private readonly options: MppRailOptions,
    tempoCharge?: TempoCharge,
  ) {
    if (options.tempo && !tempoCharge) throw new Error('an MPP rail with Tempo is made with MppRail.create');
    const chainId = chainIdOf(options.network);
    if (options.chainId !== undefined && options.chainId !== chainId) {
      throw new Error(`MPP chainId ${options.chainId} does not match network ${options.network}`);
    }
    this.chainId = chainId;
    this.expiresInSeconds = options.expiresInSeconds ?? DEFAULT_EXPIRES_IN_SECONDS;
    if (!(this.expiresInSeconds > 0)) throw new Error('MPP expiresInSeconds must be positive');
    this.terms = {
      network: options.network,
      chainId,
      asset: options.asset,
      assetName: options.assetName,
      assetVersion: options.assetVersion,
      decimals: options.decimals,
      payTo: options.payTo,
      maxTimeoutSeconds: options.maxTimeoutSeconds ?? DEFAULT_EXPIRES_IN_SECONDS,
    };
    this.evmServer = Mppx.create({ secretKey: options.secretKey, realm: options.realm, methods: [evmCharge(this.terms)] });
    this.tempoServer = tempoCharge ? Mppx.create({ secretKey: options.secretKey, realm: options.realm, methods: [tempoCharge] }) : undefined;
  }

  /** The CAIP-2 networks payments of this rail settle on (evm, then Tempo when offered). */
  get networks(): readonly string[] {
    const tempo = this.options.tempo;
    if (!tempo) return [this.options.network];
    return [this.options.network, `eip155:${tempoChainId(tempo)}`];
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
      const chainId = request.methodDetails?.chainId ?? tempoChainId(this.options.tempo!);
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
    const { payload, requirements } = toX402(this.terms, authorization, amountAtomic);
    const payer = getAddress(authorization.from);
    return { ok: true, method: 'evm', payload, requirements, challengeId, expiresAt, payer, source: validation.source ?? `did:pkh:eip155:${this.chainId}:${payer}` };
  }

  /** The x402 requirements an MPP charge of `amountAtomic` corresponds to (same shape as the x402 rail's quote). */
  requirements(amountAtomic: bigint): PaymentRequirements {
    return exactRequirements(this.terms, amountAtomic);
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
