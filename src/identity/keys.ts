import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Store, StoredSigningKey } from '../store/types.ts';

export const SIGNING_ALG = 'ES256';
/** A retired key stays published this long: the lifetime of the longest token it could have signed. */
const RETENTION_MS = 30 * 24 * 3600_000;
/** How often an instance re-reads keys (another instance may have rotated). */
const REFRESH_MS = 60_000;

type CryptoKeyLike = Awaited<ReturnType<typeof importJWK>>;

/**
 * The identity signing keys: ES256, generated on first start and kept in the shared store, so every
 * instance signs and verifies with the same keys. Rotation makes a new key active and keeps the old
 * public key in the JWKS until the last token it signed has expired.
 */
export class KeyRing {
  private keys: StoredSigningKey[] = [];
  private loadedAt = 0;
  private readonly imported = new Map<string, CryptoKeyLike>();

  constructor(
    private readonly store: Store,
    /** Age after which the active key is replaced (the old one stays published for RETENTION_MS). */
    private readonly rotationMs = 90 * 24 * 3600_000,
  ) {}

  /** Makes sure an active key exists; when several instances start together exactly one key wins. */
  async ensureKey(): Promise<void> {
    await this.refresh(true);
    if (this.activeKey()) return;
    await this.store.addSigningKey(await newKey(), { rotate: false });
    await this.refresh(true);
  }

  async rotate(): Promise<string> {
    const key = await newKey();
    await this.store.addSigningKey(key, { rotate: true });
    await this.refresh(true);
    return key.kid;
  }

  /** The key that signs new tokens. */
  async signingKey(): Promise<{ kid: string; key: CryptoKeyLike }> {
    await this.refresh();
    let active = this.activeKey();
    if (!active) {
      await this.ensureKey();
      active = this.activeKey();
    } else if (Date.now() - active.createdAt.getTime() > this.rotationMs) {
      // Scheduled rotation; if several instances do it at once the store keeps exactly one active key.
      await this.rotate();
      active = this.activeKey();
    }
    if (!active) throw new Error('no active identity signing key');
    return { kid: active.kid, key: await this.importKey(active.kid, active.privateJwk) };
  }

  /** A published key by kid, for verification; undefined for unknown or long-retired keys. */
  async verificationKey(kid: string | undefined): Promise<CryptoKeyLike | undefined> {
    if (!kid) return undefined;
    await this.refresh();
    let key = this.published().find((k) => k.kid === kid);
    if (!key) {
      await this.refresh(true); // rotated elsewhere moments ago?
      key = this.published().find((k) => k.kid === kid);
    }
    return key && this.importKey(`${kid}#public`, key.publicJwk);
  }

  /** `/.well-known/jwks.json`. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.refresh();
    return { keys: this.published().map((k) => ({ ...(JSON.parse(k.publicJwk) as JWK), kid: k.kid, alg: SIGNING_ALG, use: 'sig' })) };
  }

  private published(): StoredSigningKey[] {
    const now = Date.now();
    return this.keys.filter((k) => !k.retiredAt || k.retiredAt.getTime() + RETENTION_MS > now);
  }

  private activeKey(): StoredSigningKey | undefined {
    return this.keys.find((k) => !k.retiredAt);
  }

  private async refresh(force = false): Promise<void> {
    if (!force && Date.now() - this.loadedAt < REFRESH_MS) return;
    this.keys = await this.store.signingKeys();
    this.loadedAt = Date.now();
  }

  private async importKey(cacheKey: string, jwk: string): Promise<CryptoKeyLike> {
    let key = this.imported.get(cacheKey);
    if (!key) {
      key = await importJWK(JSON.parse(jwk) as JWK, SIGNING_ALG);
      this.imported.set(cacheKey, key);
    }
    return key;
  }
}

async function newKey(): Promise<Omit<StoredSigningKey, 'createdAt' | 'retiredAt'>> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  return {
    kid: randomUUID(),
    publicJwk: JSON.stringify(await exportJWK(publicKey)),
    privateJwk: JSON.stringify(await exportJWK(privateKey)),
  };
}
