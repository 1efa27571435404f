import { describe, expect, it } from 'vitest';
import { createLocalJWKSet, createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, UnsecuredJWT, type JWK } from 'jose';
import { createHmac } from 'node:crypto';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { freshDatabase } from './helpers/postgres.ts';
import { startTestService, useTestService } from './helpers/service.ts';

let chain: DevChain;
let service: RunningService;
const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

useTestService((c, s) => ((chain = c), (service = s)));

const post = (path: string, body: unknown, base = service.url) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const form = (path: string, fields: Record<string, string>, base = service.url) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
const me = (token: string, base = service.url) => fetch(`${base}/agent/identity/me`, { headers: { authorization: `Bearer ${token}` } });

async function register(base = service.url): Promise<{ registration_id: string; identity_assertion: string }> {
  const response = await post('/agent/identity', { type: 'anonymous' }, base);
  expect(response.status).toBe(201);
  return response.json() as Promise<{ registration_id: string; identity_assertion: string }>;
}

async function exchange(assertion: string, base = service.url): Promise<Response> {
  return form('/oauth2/token', { grant_type: GRANT, assertion }, base);
}

async function accessToken(base = service.url): Promise<string> {
  const { identity_assertion } = await register(base);
  return ((await (await exchange(identity_assertion, base)).json()) as { access_token: string }).access_token;
}

describe('discovery metadata', () => {
  it('authorization-server metadata (RFC 8414) with the agent_auth block exactly as described', async () => {
    const meta = (await (await fetch(`${service.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    const site = service.url;
    expect(meta).toMatchObject({
      issuer: site,
      token_endpoint: `${site}/oauth2/token`,
      revocation_endpoint: `${site}/oauth2/revoke`,
      jwks_uri: `${site}/.well-known/jwks.json`,
      grant_types_supported: [GRANT],
    });
    expect(meta.agent_auth).toEqual({
      skill: `${site}/agent/auth.md`,
      identity_endpoint: `${site}/agent/identity`,
      register_uri: `${site}/agent/identity`,
      claim_endpoint: `${site}/agent/identity/claim`,
      identity_types_supported: ['anonymous'],
      anonymous: { claim_uri: `${site}/agent/identity/claim`, credential_types_supported: ['urn:ietf:params:oauth:token-type:jwt'] },
    });
    const guide = await fetch(`${site}/agent/auth.md`);
    expect(guide.headers.get('content-type')).toContain('text/markdown');
    expect(await guide.text()).toContain('/oauth2/token');
  });

  it('protected-resource metadata (RFC 9728) and a JWKS with an ES256 key and kid', async () => {
    const resource = (await (await fetch(`${service.url}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(resource).toMatchObject({ resource: service.url, authorization_servers: [service.url] });
    const jwks = (await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', kid: expect.any(String) });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });
});

describe('the anonymous identity flow, checked with jose against the published JWKS', () => {
  it('register → token (twice) → me → revoke → me fails', async () => {
    const jwks = createRemoteJWKSet(new URL(`${service.url}/.well-known/jwks.json`));
    const { registration_id, identity_assertion } = await register();
    const assertion = await jwtVerify(identity_assertion, jwks, { issuer: service.url, algorithms: ['ES256'] });
    expect(assertion.payload.sub).toBe(registration_id);
    expect(assertion.payload.exp! - assertion.payload.iat!).toBe(30 * 24 * 3600);

    const first = await exchange(identity_assertion);
    expect(first.status).toBe(200);
    const tokenBody = (await first.json()) as { access_token: string; token_type: string; expires_in: number; scope: string };
    expect(tokenBody).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'agent.read' });
    const access = await jwtVerify(tokenBody.access_token, jwks, { issuer: service.url, audience: service.url, algorithms: ['ES256'] });
    expect(access.payload).toMatchObject({ sub: registration_id, scope: 'agent.read' });
    expect((await exchange(identity_assertion)).status).toBe(200); // the same assertion again

    const mine = await me(tokenBody.access_token);
    expect(mine.status).toBe(200);
    expect(await mine.json()).toMatchObject({ registration_id, type: 'anonymous' });

    expect((await form('/oauth2/revoke', { token: tokenBody.access_token })).status).toBe(200);
    const after = await me(tokenBody.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('invalid_token');
    expect((await form('/oauth2/revoke', { token: 'not-a-token' })).status).toBe(200);
    expect((await form('/oauth2/revoke', {})).status).toBe(400);
  });

  it('unsupported flows answer with their OAuth errors', async () => {
    const expectError = async (response: Response, status: number, error: string) => {
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject({ error, error_description: expect.any(String) });
    };
    await expectError(await post('/agent/identity', { type: 'identity_assertion' }), 400, 'issuer_not_enabled');
    await expectError(await post('/agent/identity', { type: 'service_auth' }), 400, 'service_auth_not_enabled');
    await expectError(await post('/agent/identity/claim', { claim_token: 'x' }), 400, 'invalid_claim_token');
    await expectError(await form('/oauth2/token', { grant_type: 'client_credentials', assertion: 'x' }), 400, 'unsupported_grant_type');
    await expectError(await form('/oauth2/token', { grant_type: GRANT }), 400, 'invalid_request');
    await expectError(await exchange('garbage'), 400, 'invalid_grant');
  });

  it('a Bearer token never buys a paid response', async () => {
    const token = await accessToken();
    const response = await fetch(`${service.url}/api/v1/paid/time`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(402);
  });
});

describe('attacks on tokens are rejected', () => {
  async function ourKey() {
    const { kid, key } = await service.percall.keys.signingKey();
    return { kid, key };
  }
  const claims = (sub: string, aud: string) => ({ sub, aud, iss: service.url, jti: crypto.randomUUID(), scope: 'agent.read' });

  it('alg none', async () => {
    const { registration_id } = await register();
    const unsecured = new UnsecuredJWT(claims(registration_id, `${service.url}/oauth2/token`)).setIssuedAt().setExpirationTime('1h').encode();
    expect((await exchange(unsecured)).status).toBe(400);
    const unsecuredAccess = new UnsecuredJWT(claims(registration_id, service.url)).setIssuedAt().setExpirationTime('1h').encode();
    expect((await me(unsecuredAccess)).status).toBe(401);
  });

  it('HS256 signed with the public key as the secret', async () => {
    const { registration_id } = await register();
    const jwks = (await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const publicKey = jwks.keys[0]!;
    const secret = new TextEncoder().encode(JSON.stringify(publicKey));
    const forged = await new SignJWT(claims(registration_id, service.url)).setProtectedHeader({ alg: 'HS256', kid: publicKey.kid, typ: 'at+jwt' }).setIssuedAt().setExpirationTime('1h').sign(secret);
    expect((await me(forged)).status).toBe(401);
    // And with the raw bytes of x‖y, another common variant.
    const raw = createHmac('sha256', Buffer.from(`${publicKey.x}${publicKey.y}`)).digest();
    const forged2 = await new SignJWT(claims(registration_id, service.url)).setProtectedHeader({ alg: 'HS256', kid: publicKey.kid, typ: 'at+jwt' }).setIssuedAt().setExpirationTime('1h').sign(raw);
    expect((await me(forged2)).status).toBe(401);
  });

  it('a token signed by another key, even with our kid', async () => {
    const { registration_id } = await register();
    const { kid } = await ourKey();
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT(claims(registration_id, service.url)).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).setIssuedAt().setExpirationTime('1h').sign(privateKey);
    expect((await me(foreign)).status).toBe(401);
    // Sanity: the foreign token is well-formed and valid under its own key.
    await expect(jwtVerify(foreign, createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid }] }))).resolves.toBeTruthy();
  });

  it('expired assertion and expired token', async () => {
    const { registration_id } = await register();
    const { kid, key } = await ourKey();
    const past = Math.floor(Date.now() / 1000) - 7200;
    const expiredAssertion = await new SignJWT({ ...claims(registration_id, `${service.url}/oauth2/token`), identity_type: 'anonymous' })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'identity-assertion+jwt' })
      .setIssuedAt(past)
      .setExpirationTime(past + 60)
      .sign(key);
    const rejected = await exchange(expiredAssertion);
    expect(rejected.status).toBe(400);
    expect(((await rejected.json()) as { error_description: string }).error_description).toContain('expired');
    const expiredToken = await new SignJWT(claims(registration_id, service.url)).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).setIssuedAt(past).setExpirationTime(past + 60).sign(key);
    expect((await me(expiredToken)).status).toBe(401);
  });

  it('an identity assertion is not an access token, and the reverse', async () => {
    const { identity_assertion } = await register();
    expect((await me(identity_assertion)).status).toBe(401);
    const token = await accessToken();
    expect((await exchange(token)).status).toBe(400);
  });
});

describe('a token revoked on one instance stops working on another (shared PostgreSQL)', () => {
  it('revoke on B, rejected on A', async (ctx) => {
    const db = await freshDatabase();
    if (!db) return ctx.skip();
    // Instances behind one load balancer share one public name, hence one issuer and audience.
    const env = { DATABASE_URL: db.url, PUBLIC_BASE_URL: 'https://api.percall.test', SITE_URL: 'https://api.percall.test' };
    const a = await startTestService({ chain, env });
    const b = await startTestService({ chain, env });
    try {
      const token = await accessToken(a.localUrl);
      expect((await me(token, b.localUrl)).status).toBe(200); // same keys everywhere
      expect((await form('/oauth2/revoke', { token }, b.localUrl)).status).toBe(200);
      expect((await me(token, a.localUrl)).status).toBe(401);
    } finally {
      await a.stop();
      await b.stop();
      await db.drop();
    }
  });
});

describe('key rotation', () => {
  it('a new key signs new tokens; the old public key stays published and its tokens keep verifying', async () => {
    const before = await accessToken();
    const oldKid = (await service.percall.keys.signingKey()).kid;
    const newKid = await service.percall.keys.rotate();
    expect(newKid).not.toBe(oldKid);
    const jwks = (await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect((await me(before)).status).toBe(200);
    const after = await accessToken();
    const header = JSON.parse(Buffer.from(after.split('.')[0]!, 'base64url').toString()) as { kid: string };
    expect(header.kid).toBe(newKid);
    expect((await me(after)).status).toBe(200);
  });
});
