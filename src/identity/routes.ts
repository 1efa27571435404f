import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { describeError, type Logger } from '../log.ts';
import { StoreUnavailableError } from '../store/sql-store.ts';
import type { Store } from '../store/types.ts';
import type { KeyRing } from './keys.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import { ACCESS_TOKEN_TTL_S, ASSERTION_TTL_S, REGISTRATION_TTL_S, SCOPE, type TokenService } from './tokens.ts';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

export interface IdentityDeps {
  store: Store;
  keys: KeyRing;
  tokens: TokenService;
  log: Logger;
  /** Per-client limits: registrations and token requests create state. */
  limiter: RateLimiter;
  /** Public origin of the site (issuer, identity endpoints). */
  siteUrl: string;
  /** Public origin of the API (the protected resource). */
  baseUrl: string;
}

export function identityUrls(siteUrl: string) {
  return {
    issuer: siteUrl,
    token: `${siteUrl}/oauth2/token`,
    revocation: `${siteUrl}/oauth2/revoke`,
    jwks: `${siteUrl}/.well-known/jwks.json`,
    identity: `${siteUrl}/agent/identity`,
    me: `${siteUrl}/agent/identity/me`,
    claim: `${siteUrl}/agent/identity/claim`,
    skill: `${siteUrl}/agent/auth.md`,
  };
}

/**
 * The optional, anonymous agent identity: registration, JWT-bearer token exchange (RFC 7523),
 * revocation (RFC 7009), the caller's registration, and the discovery metadata (RFC 8414, RFC 9728).
 * Identity never buys a paid response: paid routes do not even read the Authorization header.
 */
export function registerIdentity(app: Hono, deps: IdentityDeps): void {
  const urls = identityUrls(deps.siteUrl);
  const json = (c: Context, body: unknown, status = 200) =>
    c.json(body as object, status as 200, { 'cache-control': 'no-store', pragma: 'no-cache' });

  app.get('/.well-known/jwks.json', async (c) => c.json(await deps.keys.jwks(), 200, { 'cache-control': 'public, max-age=300' }));

  app.get('/.well-known/oauth-authorization-server', (c) =>
    c.json({
      issuer: urls.issuer,
      token_endpoint: urls.token,
      revocation_endpoint: urls.revocation,
      jwks_uri: urls.jwks,
      grant_types_supported: [JWT_BEARER_GRANT],
      response_types_supported: [],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      token_endpoint_auth_signing_alg_values_supported: ['ES256'],
      scopes_supported: [SCOPE],
      service_documentation: urls.skill,
      agent_auth: {
        skill: urls.skill,
        identity_endpoint: urls.identity,
        register_uri: urls.identity,
        claim_endpoint: urls.claim,
        identity_types_supported: ['anonymous'],
        anonymous: { claim_uri: urls.claim, credential_types_supported: [JWT_TOKEN_TYPE] },
      },
    }),
  );

  app.get('/.well-known/oauth-protected-resource', (c) =>
    c.json({
      resource: deps.baseUrl,
      authorization_servers: [urls.issuer],
      jwks_uri: urls.jwks,
      bearer_methods_supported: ['header'],
      scopes_supported: [SCOPE],
      resource_signing_alg_values_supported: ['ES256'],
      resource_documentation: urls.skill,
    }),
  );

  app.get('/agent/auth.md', (c) => c.body(authGuide(urls), 200, { 'content-type': 'text/markdown; charset=utf-8' }));

  app.post('/agent/identity', deps.limiter.guard('registration'), async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as { type?: unknown } | undefined;
    const type = body?.type;
    if (type === 'identity_assertion') return oauthError(c, 400, 'issuer_not_enabled', 'no identity issuer is trusted (the provider trust list is empty)');
    if (type === 'service_auth') return oauthError(c, 400, 'service_auth_not_enabled', 'there are no user accounts');
    if (type !== 'anonymous') return oauthError(c, 400, 'invalid_request', 'body must be JSON with "type": "anonymous"');
    return guard(c, deps, async () => {
      const id = `reg_${randomUUID()}`;
      const expiresAt = new Date(Date.now() + REGISTRATION_TTL_S * 1000);
      await deps.store.createRegistration(id, expiresAt);
      const assertion = await deps.tokens.issueAssertion(id);
      return json(
        c,
        { registration_id: id, type: 'anonymous', identity_assertion: assertion, assertion_expires_in: ASSERTION_TTL_S, expires_at: expiresAt.toISOString() },
        201,
      );
    });
  });

  app.post('/oauth2/token', deps.limiter.guard('token'), async (c) => {
    const form = await formBody(c);
    if (!form) return oauthError(c, 400, 'invalid_request', 'expected an application/x-www-form-urlencoded body');
    const grantType = form.get('grant_type');
    const assertion = form.get('assertion');
    if (!grantType || !assertion) return oauthError(c, 400, 'invalid_request', 'grant_type and assertion are required');
    if (grantType !== JWT_BEARER_GRANT) return oauthError(c, 400, 'unsupported_grant_type', `only ${JWT_BEARER_GRANT} is supported`);
    return guard(c, deps, async () => {
      const verified = await deps.tokens.verifyAssertion(assertion);
      if (!verified.ok) return oauthError(c, 400, 'invalid_grant', `identity assertion rejected: ${verified.reason}`);
      const registration = await deps.store.registration(verified.sub);
      if (!registration || registration.expiresAt < new Date()) return oauthError(c, 400, 'invalid_grant', 'registration unknown or expired');
      const accessToken = await deps.tokens.issueAccessToken(verified.sub);
      return json(c, { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_S, scope: SCOPE });
    });
  });

  app.post('/oauth2/revoke', deps.limiter.guard('token'), async (c) => {
    const form = await formBody(c);
    const token = form?.get('token');
    if (!token) return oauthError(c, 400, 'invalid_request', 'token is required');
    return guard(c, deps, async () => {
      // RFC 7009 §2.2: 200 whether or not the token was valid; only our own valid tokens are recorded.
      const verified = await deps.tokens.verifyAny(token);
      if (verified.ok) await deps.store.revokeToken(verified.jti, new Date(verified.exp * 1000));
      return c.body(null, 200, { 'cache-control': 'no-store' });
    });
  });

  app.get('/agent/identity/me', async (c) => {
    const match = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
    if (!match) return bearerError(c, undefined, 'a Bearer access token is required');
    return guard(c, deps, async () => {
      const verified = await deps.tokens.verifyAccessToken(match[1]!);
      if (!verified.ok) return bearerError(c, 'invalid_token', verified.reason);
      const registration = await deps.store.registration(verified.sub);
      if (!registration || registration.expiresAt < new Date()) return bearerError(c, 'invalid_token', 'registration expired');
      return json(c, {
        registration_id: registration.id,
        type: 'anonymous',
        created_at: registration.createdAt.toISOString(),
        expires_at: registration.expiresAt.toISOString(),
        scope: SCOPE,
      });
    });
  });

  app.post('/agent/identity/claim', (c) => oauthError(c, 400, 'invalid_claim_token', 'no claim token is ever issued: registrations stay anonymous'));
}

async function formBody(c: Context): Promise<URLSearchParams | undefined> {
  if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) return undefined;
  return new URLSearchParams(await c.req.text());
}

function oauthError(c: Context, status: 400 | 401 | 503, error: string, description: string, headers: Record<string, string> = {}): Response {
  return c.json({ error, error_description: description }, status, { 'cache-control': 'no-store', ...headers });
}

/** RFC 6750 §3: 401 with WWW-Authenticate; no error code when no credentials were sent. */
function bearerError(c: Context, error: string | undefined, description: string): Response {
  const challenge = error ? `Bearer error="${error}", error_description="${description}"` : 'Bearer';
  return oauthError(c, 401, error ?? 'invalid_request', description, { 'www-authenticate': challenge });
}

async function guard(c: Context, deps: IdentityDeps, fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    deps.log.warn({ err: describeError(error) }, 'identity store unavailable');
    return oauthError(c, 503, 'temporarily_unavailable', 'the identity store is unavailable; retry later', { 'retry-after': '5' });
  }
}

function authGuide(urls: ReturnType<typeof identityUrls>): string {
  return `# Agent authentication (optional, anonymous)

Identity is optional and never pays for anything: paid routes need a payment (x402 or MPP) and
ignore Bearer tokens. An identity gives an agent a stable, anonymous registration.

1. Register: \`POST ${urls.identity}\` with JSON \`{"type": "anonymous"}\`. You get a \`registration_id\`
   and an \`identity_assertion\` (ES256 JWT, 30 days, verifiable against ${urls.jwks}).
2. Exchange: \`POST ${urls.token}\`, form-encoded:
   \`grant_type=${JWT_BEARER_GRANT}&assertion=<identity_assertion>\`. You get an \`access_token\`
   (Bearer, 1 hour, scope \`${SCOPE}\`). Exchange the same assertion again whenever you need a new token.
3. Use: \`GET ${urls.me}\` with \`Authorization: Bearer <access_token>\` returns your registration.
4. Revoke: \`POST ${urls.revocation}\` (RFC 7009), form-encoded \`token=<token>\`; it stops working on every instance.

## Route-scoped proofs (\`POST /api/v1/paid/x401-batch-extract\`)

That route also needs a proof, checked before payment. Without one you get \`401\` and a
\`PROOF-REQUEST\` JSON document (nothing is charged). Answer it in the request body's \`proof\` field with
a credential carrying \`route\`, \`sub\`, \`aud\`, \`exp\`, \`nonce\` and \`request_hash\` from that document:
- \`jwt\`: a JWS (ES256 or EdDSA) signed by your own key, with the public key in the protected header
  \`jwk\` and \`sub\` = its RFC 7638 thumbprint URI (\`urn:ietf:params:oauth:jwk-thumbprint:sha-256:…\`);
- \`json\`: the claims as a JSON object plus \`access_token\` (from step 2), whose subject is \`sub\`.
\`request_hash\` = \`sha256:\` + hex SHA-256 of \`POST /api/v1/paid/x401-batch-extract\\n\` followed by the
canonical JSON of the body without \`proof\` (keys sorted, no whitespace). The nonce is single-use and
valid 15 minutes; a proven but unpaid request gets the usual 402 and the same proof serves the paid retry.

Not supported: \`identity_assertion\` registration (\`issuer_not_enabled\`), \`service_auth\`
(\`service_auth_not_enabled\`), and claims (\`${urls.claim}\` always answers \`invalid_claim_token\`).
Registrations stay anonymous for their whole life (200 days).
`;
}
