import {
  SIGN_IN_WITH_X,
  SIWxPayloadSchema,
  buildSIWxSchema,
  validateSIWxMessage,
  verifySIWxSignature,
} from '@x402/extensions/sign-in-with-x';
import { randomBytes } from 'node:crypto';
import type { ProductRunner } from '../products/runner.ts';
import type { AvailableProduct } from '../catalogue/types.ts';
import type { Store } from '../store/types.ts';

export { SIGN_IN_WITH_X };

/** How old a wallet proof may be. */
const PROOF_MAX_AGE_MS = 5 * 60_000;

export type FreeGrant = { ok: true; wallet: string; remaining?: number } | { ok: false; reason: string };

export type FreeResult =
  | { status: 'served'; output: unknown; wallet: string; remaining?: number }
  | { status: 'denied'; reason: string }
  | { status: 'product_failed'; error: unknown };

/**
 * Free tiers and free doors, per wallet. The caller proves its wallet with the official x402
 * Sign-In-With-X extension (CAIP-122 / SIWE): the 402 carries an `extensions["sign-in-with-x"]`
 * challenge; the caller signs it and sends the signed payload back (MCP: `_meta["sign-in-with-x"]`,
 * HTTP: the `SIGN-IN-WITH-X` header). A claimed address counts for nothing: the signature must
 * recover to it, the message must name this host and this very tool or route, be under five minutes
 * old, and its nonce is single-use, so a proof cannot be replayed to spend someone else's quota.
 */
export class FreeTierDoor {
  constructor(
    private readonly store: Store,
    private readonly runner: ProductRunner,
    /** Networks whose wallets may sign in (the payment networks on offer). */
    private readonly networks: readonly string[],
  ) {}

  /** A free call: grant from the wallet proof, then the product at its free tier; a failure gives the quota back. */
  async serve(product: AvailableProduct, input: unknown, proof: unknown, resource: string, origin: URL): Promise<FreeResult> {
    const grant = await this.grant(product, proof, resource, origin);
    if (!grant.ok) return { status: 'denied', reason: grant.reason };
    try {
      const output = await this.runner.run(product, input, 'free', { caller: grant.wallet.toLowerCase() });
      return { status: 'served', output, wallet: grant.wallet, ...(grant.remaining !== undefined ? { remaining: grant.remaining } : {}) };
    } catch (error) {
      await this.refund(product, grant.wallet);
      return { status: 'product_failed', error };
    }
  }

  /** The challenge that goes into the 402 of a product with a free tier. */
  challenge(resource: string, origin: URL, endpointUri: string): Record<string, unknown> {
    const info = {
      domain: origin.host,
      uri: endpointUri,
      version: '1',
      statement: 'Prove wallet ownership for the free tier of this tool. No payment, no transaction.',
      nonce: randomBytes(16).toString('hex'),
      issuedAt: new Date().toISOString(),
      expirationTime: new Date(Date.now() + PROOF_MAX_AGE_MS).toISOString(),
      resources: [resource],
    };
    const supportedChains = this.networks.map((chainId) => ({ chainId, type: chainId.startsWith('solana:') ? 'ed25519' : 'eip191' }));
    return { [SIGN_IN_WITH_X]: { info, supportedChains, schema: buildSIWxSchema() } };
  }

  /** Checks the proof and takes one free call from the wallet's daily quota. */
  async grant(product: AvailableProduct, proof: unknown, resource: string, origin: URL, now = new Date()): Promise<FreeGrant> {
    const tier = product.freeTier;
    if (!tier) return { ok: false, reason: 'no_free_tier' };
    const parsed = SIWxPayloadSchema.safeParse(proof);
    if (!parsed.success) return { ok: false, reason: 'invalid_siwx_payload' };
    const payload = parsed.data;
    if (!this.networks.includes(payload.chainId)) return { ok: false, reason: 'invalid_siwx_unsupported_chain' };
    if (!payload.resources?.includes(resource)) return { ok: false, reason: 'invalid_siwx_resource_mismatch' };
    const valid = await validateSIWxMessage(payload, origin, { maxAge: PROOF_MAX_AGE_MS });
    if (!valid.isValid) return { ok: false, reason: valid.invalidReason };
    // The SDK builds the SIWE message before its own try: a field SIWE refuses (an address that is
    // not one, a short nonce, a version other than 1) throws instead of answering invalid.
    const verified = await verifySIWxSignature(payload).catch(() => undefined);
    if (!verified) return { ok: false, reason: 'invalid_siwx_payload' };
    if (!verified.isValid) return { ok: false, reason: verified.invalidReason };
    const wallet = verified.payer;
    // Single use per wallet: two wallets may answer the same challenge, one proof never counts twice.
    if (!(await this.store.useNonce(`siwx:${wallet.toLowerCase()}:${payload.nonce}`))) return { ok: false, reason: 'invalid_siwx_nonce_reused' };

    if (tier.perWalletPerDay === undefined) return { ok: true, wallet };
    const day = now.toISOString().slice(0, 10);
    if (!(await this.store.consumeQuota(wallet, product.id, day, tier.perWalletPerDay))) return { ok: false, reason: 'free_tier_exhausted' };
    return { ok: true, wallet, remaining: await this.remaining(wallet, product, day, tier.perWalletPerDay) };
  }

  /** The free call produced nothing: its quota unit goes back. */
  async refund(product: AvailableProduct, wallet: string, now = new Date()): Promise<void> {
    if (product.freeTier?.perWalletPerDay !== undefined) await this.store.refundQuota(wallet, product.id, now.toISOString().slice(0, 10));
  }

  private async remaining(wallet: string, product: AvailableProduct, day: string, limit: number): Promise<number> {
    return Math.max(0, limit - (await this.store.quotaUsed(wallet, product.id, day)));
  }
}
