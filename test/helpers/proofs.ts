import { calculateJwkThumbprintUri, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import type { ProofRequest } from '../../src/identity/proof-request.ts';

/** A caller key and a JWT credential signed with it, `sub` = the key's thumbprint. */
export async function jwtProof(request: ProofRequest, overrides: JWTPayload = {}, expiresIn = '10m'): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return new SignJWT({ route: request.route, aud: request.audience, nonce: request.nonce, request_hash: request.request_hash, sub: await calculateJwkThumbprintUri(jwk), ...overrides })
    .setProtectedHeader({ alg: 'ES256', jwk })
    .setExpirationTime(expiresIn)
    .sign(privateKey);
}
