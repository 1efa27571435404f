import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprintUri, decodeProtectedHeader, EmbeddedJWK, errors, jwtVerify, type JWTPayload } from 'jose';
import { canonicalJson } from '../canonical-json.ts';
import type { Store } from '../store/types.ts';
import type { TokenService } from './tokens.ts';

export const PROOF_TTL_MS = 15 * 60_000;
/** Open nonces one client may hold per route; past it, its newest PROOF-REQUEST is answered again. */
export const PROOF_NONCE_BUDGET = 5;
/** How long a paid request may hold a nonce before the hold lapses (its instance died mid-call). */
const PROOF_HOLD_MS = 10 * 60_000;
export const REQUIRED_CLAIMS = ['route', 'sub', 'aud', 'exp', 'nonce', 'request_hash'] as const;
const PROOF_ALGORITHMS = ['ES256', 'EdDSA'];

export interface ProofRequest {
  type: 'PROOF-REQUEST';
  route: string;
  subject: string | null;
  audience: string;
  nonce: string;
  required_claims: readonly string[];
  issued_at: string;
  expires_at: string;
  accepted_credential_formats: ['jwt', 'json'];
  request_hash: string;
  deterministic_example: {
    production: false;
    route: string;
    subject: string;
    audience: string;
    nonce: string;
    request_hash: string;
    note: string;
  };
}

export type ProofCheck = { ok: true; subject: string; nonce: string } | { ok: false; reason: string };

/**
 * The request hash a proof binds to: `sha256:` + hex SHA-256 of
 * `<METHOD> <path>\n<canonical JSON of the body without its "proof" field>` (object keys sorted,
 * no whitespace). Query strings are not part of it: the route takes its input from the body.
 */
export function requestHash(route: string, body: unknown): string {
  const withoutProof = body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as Record<string, unknown>), proof: undefined } : body;
  return `sha256:${createHash('sha256').update(`${route}\n${canonicalJson(withoutProof ?? {})}`).digest('hex')}`;
}

/**
 * Route-scoped proofs (the x401 batch extraction route). An unproven request gets a PROOF-REQUEST
 * naming a fresh nonce (stored, single-use across instances, 15 minutes). The caller answers with a
 * credential carrying route, sub, aud, exp, nonce and request_hash, either
 *  - `jwt`: a JWS signed by the caller's own key (ES256 or EdDSA), the public key in the protected
 *    header's `jwk`, and `sub` = that key's RFC 7638 thumbprint URI, so the subject is the key; or
 *  - `json`: the claims as a JSON object plus `access_token`, a Bearer token of this service's
 *    anonymous identity whose subject must equal `sub`.
 * The credential goes in the request body's `proof` field. Proof and payment are independent checks.
 */
export class ProofVerifier {
  constructor(
    private readonly store: Store,
    private readonly tokens: TokenService,
    /** The API host name: the proof's audience. */
    private readonly audience: string,
  ) {}

  /** A PROOF-REQUEST for `client` (its address or network, see clientKey), within its nonce budget. */
  async proofRequest(route: string, body: unknown, client: string, now = new Date()): Promise<ProofRequest> {
    const issued = await this.store.issueProofNonce({ nonce: randomUUID(), route, client, issuedAt: now, expiresAt: new Date(now.getTime() + PROOF_TTL_MS), budget: PROOF_NONCE_BUDGET });
    const { nonce } = issued;
    const exampleNonce = '00000000-0000-4000-8000-000000000000';
    return {
      type: 'PROOF-REQUEST',
      route,
      subject: null,
      audience: this.audience,
      nonce,
      required_claims: REQUIRED_CLAIMS,
      issued_at: issued.issuedAt.toISOString(),
      expires_at: issued.expiresAt.toISOString(),
      accepted_credential_formats: ['jwt', 'json'],
      request_hash: requestHash(route, body),
      deterministic_example: {
        production: false,
        route,
        subject: 'urn:ietf:params:oauth:jwk-thumbprint:sha-256:EXAMPLE',
        audience: this.audience,
        nonce: exampleNonce,
        request_hash: requestHash(route, { urls: ['https://example.com/'] }),
        note: 'Illustrative only, for the body {"urls":["https://example.com/"]}; never submit it as a credential. Sign your own claims with the nonce and request_hash above.',
      },
    };
  }

  /**
   * Checks the `proof` in a request body. With `hold` (a paid request) the nonce is held for this
   * request alone, and it is then spent if the request was served or given back if not, so
   * a payment that fails never costs the caller its proof (see whileHeld). Without it (an unpaid request that will
   * get a 402) the nonce is only looked at, so the paid retry can present the same proof.
   */
  async check(route: string, body: unknown, options: { hold: boolean }): Promise<ProofCheck> {
    const proof = (body as { proof?: unknown } | undefined)?.proof;
    if (proof === undefined) return { ok: false, reason: 'proof_missing' };
    const claims = typeof proof === 'string' ? await this.jwtClaims(proof) : await this.jsonClaims(proof);
    if (!claims.ok) return claims;
    const c = claims.claims;
    if (c.route !== route) return { ok: false, reason: 'proof_route_mismatch' };
    if (c.aud !== this.audience) return { ok: false, reason: 'proof_audience_mismatch' };
    if (c.request_hash !== requestHash(route, body)) return { ok: false, reason: 'proof_request_hash_mismatch' };
    const now = Date.now() / 1000;
    if (typeof c.exp !== 'number' || c.exp <= now) return { ok: false, reason: 'proof_expired' };
    if (c.exp > now + PROOF_TTL_MS / 1000 + 60) return { ok: false, reason: 'proof_exp_too_far' };
    if (typeof c.nonce !== 'string') return { ok: false, reason: 'proof_nonce_missing' };
    const nonceOk = options.hold ? await this.store.holdProofNonce(c.nonce, route, PROOF_HOLD_MS) : await this.store.proofNonceOpen(c.nonce, route);
    if (!nonceOk) return { ok: false, reason: 'proof_nonce_unknown_or_used' };
    return { ok: true, subject: String(c.sub), nonce: c.nonce };
  }

  /**
   * Runs the request that holds `nonce` (from `check` with `hold`; none for an unpaid request): the
   * nonce is spent when `served(result)`, given back otherwise, a thrown error included.
   */
  async whileHeld<T>(nonce: string | undefined, run: () => Promise<T>, served: (result: T) => boolean): Promise<T> {
    if (nonce === undefined) return run();
    let spent = false;
    try {
      const result = await run();
      spent = served(result);
      return result;
    } finally {
      await (spent ? this.store.consumeProofNonce(nonce) : this.store.releaseProofNonce(nonce));
    }
  }

  private async jwtClaims(jwt: string): Promise<{ ok: true; claims: JWTPayload } | { ok: false; reason: string }> {
    try {
      const header = decodeProtectedHeader(jwt);
      if (!header.jwk) return { ok: false, reason: 'proof_jwk_missing' };
      const { payload } = await jwtVerify(jwt, EmbeddedJWK, { algorithms: PROOF_ALGORITHMS, requiredClaims: [...REQUIRED_CLAIMS] });
      if (payload.sub !== (await calculateJwkThumbprintUri(header.jwk))) return { ok: false, reason: 'proof_subject_not_key' };
      return { ok: true, claims: payload };
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { ok: false, reason: 'proof_expired' };
      return { ok: false, reason: 'proof_invalid_jwt' };
    }
  }

  private async jsonClaims(proof: unknown): Promise<{ ok: true; claims: JWTPayload } | { ok: false; reason: string }> {
    if (!proof || typeof proof !== 'object' || Array.isArray(proof)) return { ok: false, reason: 'proof_malformed' };
    const claims = proof as JWTPayload & { access_token?: unknown };
    for (const claim of REQUIRED_CLAIMS) if (claims[claim] === undefined) return { ok: false, reason: `proof_claim_missing_${claim}` };
    if (typeof claims.access_token !== 'string') return { ok: false, reason: 'proof_access_token_missing' };
    const token = await this.tokens.verifyAccessToken(claims.access_token);
    if (!token.ok) return { ok: false, reason: 'proof_access_token_invalid' };
    if (token.sub !== claims.sub) return { ok: false, reason: 'proof_subject_mismatch' };
    return { ok: true, claims };
  }
}
