import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Store } from '../store/types.ts';
import { SIGNING_ALG, type KeyRing } from './keys.ts';

export const ASSERTION_TTL_S = 30 * 24 * 3600;
export const ACCESS_TOKEN_TTL_S = 3600;
export const REGISTRATION_TTL_S = 200 * 24 * 3600;
export const SCOPE = 'agent.read';
const ASSERTION_TYPE = 'identity-assertion+jwt';
/** RFC 9068 access token type. */
const ACCESS_TOKEN_TYPE = 'at+jwt';

export interface IdentityUrls {
  /** Issuer of assertions and tokens (the site URL). */
  issuer: string;
  /** Audience of identity assertions: the token endpoint that exchanges them (RFC 7523). */
  tokenEndpoint: string;
  /** Audience of access tokens: the protected resource (the API). */
  resource: string;
}

export type Verified = { ok: true; sub: string; jti: string; exp: number } | { ok: false; reason: string };

/**
 * Identity assertions (30 days) and access tokens (1 hour): ES256 JWTs from the key ring. Verification
 * accepts ES256 only, from our published keys only, with exact issuer, audience and type, and
 * consults the shared revocation list.
 */
export class TokenService {
  constructor(
    private readonly keys: KeyRing,
    private readonly store: Store,
    readonly urls: IdentityUrls,
  ) {}

  issueAssertion(registrationId: string): Promise<string> {
    return this.sign({ identity_type: 'anonymous' }, registrationId, this.urls.tokenEndpoint, ASSERTION_TTL_S, ASSERTION_TYPE);
  }

  issueAccessToken(registrationId: string): Promise<string> {
    return this.sign({ scope: SCOPE, client_id: registrationId }, registrationId, this.urls.resource, ACCESS_TOKEN_TTL_S, ACCESS_TOKEN_TYPE);
  }

  verifyAssertion(jwt: string): Promise<Verified> {
    return this.verify(jwt, this.urls.tokenEndpoint, ASSERTION_TYPE);
  }

  verifyAccessToken(jwt: string): Promise<Verified> {
    return this.verify(jwt, this.urls.resource, ACCESS_TOKEN_TYPE);
  }

  /** Verifies our own token regardless of kind, for revocation (RFC 7009 accepts any token we issued). */
  async verifyAny(jwt: string): Promise<Verified> {
    const access = await this.verifyAccessToken(jwt);
    return access.ok ? access : this.verifyAssertion(jwt);
  }

  private async sign(claims: JWTPayload, sub: string, aud: string, ttl: number, typ: string): Promise<string> {
    const { kid, key } = await this.keys.signingKey();
    return new SignJWT(claims)
      .setProtectedHeader({ alg: SIGNING_ALG, kid, typ })
      .setIssuer(this.urls.issuer)
      .setSubject(sub)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime(`${ttl}s`)
      .setJti(randomUUID())
      .sign(key);
  }

  private async verify(jwt: string, audience: string, typ: string): Promise<Verified> {
    const getKey: JWTVerifyGetKey = async (header) => {
      const key = await this.keys.verificationKey(header.kid);
      if (!key) throw new errors.JWKSNoMatchingKey();
      return key;
    };
    try {
      const { payload } = await jwtVerify(jwt, getKey, { algorithms: [SIGNING_ALG], issuer: this.urls.issuer, audience, typ, requiredClaims: ['sub', 'jti', 'exp'] });
      if (await this.store.isRevoked(payload.jti!)) return { ok: false, reason: 'token revoked' };
      return { ok: true, sub: payload.sub!, jti: payload.jti!, exp: payload.exp! };
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { ok: false, reason: 'token expired' };
      if (error instanceof errors.JOSEError) return { ok: false, reason: 'token invalid' };
      throw error;
    }
  }
}
