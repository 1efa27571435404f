import { describe, expect, it } from 'vitest';
import type { DevChain } from '../src/devchain/stack.ts';
import { requestHash, type ProofRequest } from '../src/identity/proof-request.ts';
import type { RunningService } from '../src/runtime.ts';
import { paymentHeader, quote, signPayment } from './helpers/payments.ts';
import { TEST_PRODUCTS } from './helpers/products.ts';
import { jwtProof } from './helpers/proofs.ts';
import { balances, useTestService } from './helpers/service.ts';

let chain: DevChain;
let service: RunningService;
const X401 = '/api/v1/paid/x401-batch-extract';
const PROVEN = '/api/v1/paid/test-proof';
const body = { urls: ['https://example.com/a', 'https://example.com/b'] };

useTestService((c, s) => ((chain = c), (service = s)), { products: TEST_PRODUCTS });

const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(json) });

async function proofRequestFor(path: string, json: unknown = body): Promise<ProofRequest> {
  const response = await post(path, json);
  expect(response.status).toBe(401);
  return (await response.json()) as ProofRequest;
}

describe('PROOF-REQUEST for the x401 batch extraction route', () => {
  it('an unproven request gets 401 with exactly the described document', async () => {
    const request = await proofRequestFor(X401);
    const host = new URL(service.url).host;
    expect(request).toMatchObject({
      type: 'PROOF-REQUEST',
      route: `POST ${X401}`,
      subject: null,
      audience: host,
      required_claims: ['route', 'sub', 'aud', 'exp', 'nonce', 'request_hash'],
      accepted_credential_formats: ['jwt', 'json'],
      request_hash: requestHash(`POST ${X401}`, body),
      deterministic_example: { production: false, route: `POST ${X401}`, audience: host },
    });
    expect(request.nonce).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(request.request_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(new Date(request.expires_at).getTime() - new Date(request.issued_at).getTime()).toBe(15 * 60_000);
  });

  it('paid but unproven: 401 and never charged; proven but unpaid: the usual 402', async () => {
    const url = `${service.url}/api/v1/paid/time`;
    const payment = await signPayment(chain.buyer.privateKey, await quote(url)); // any well-formed payment header
    const before = await balances(chain);
    expect((await post(X401, body, paymentHeader(payment))).status).toBe(401);
    const request = await proofRequestFor(X401);
    const proven = await post(X401, { ...body, proof: await jwtProof(request) });
    expect(proven.status).toBe(402);
    expect(await balances(chain)).toEqual(before);
  });
});

describe('proof and payment together (a proof-gated test product)', () => {
  it('proven and unpaid ⇒ 402; the same proof with a payment ⇒ 200; the nonce is then spent', async () => {
    const request = await proofRequestFor(PROVEN);
    const proof = await jwtProof(request);
    const unpaid = await post(PROVEN, { ...body, proof });
    expect(unpaid.status).toBe(402);
    const payment = await signPayment(chain.buyer.privateKey, await unpaid.json());
    const paid = await post(PROVEN, { ...body, proof }, paymentHeader(payment));
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual({ urls: body.urls });
    const replay = await post(PROVEN, { ...body, proof }, paymentHeader(await signPayment(chain.buyer.privateKey, await (await fetch(`${service.url}/api/v1/paid/time`)).json())));
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as { error: string }).error).toBe('proof_nonce_unknown_or_used');
  });

  it('a proven request whose payment fails does not spend the nonce: the honest retry with the same proof is served', async () => {
    const request = await proofRequestFor(PROVEN);
    const proof = await jwtProof(request);
    const unpaid = await post(PROVEN, { ...body, proof });
    const required = await unpaid.json();
    const payment = await signPayment(chain.buyer.privateKey, required);
    const broken = { ...payment, payload: { ...payment.payload, signature: `0x${'11'.repeat(65)}` } };
    const failed = await post(PROVEN, { ...body, proof }, paymentHeader(broken));
    expect(failed.status).toBe(402);
    const retried = await post(PROVEN, { ...body, proof }, paymentHeader(payment));
    expect(retried.status).toBe(200);
  });

  it('unproven requests from one client reuse its open nonces past a small budget: 300 requests store at most 5', async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 300; i++) nonces.add((await proofRequestFor(PROVEN, { urls: [`https://example.com/${i}`] })).nonce);
    expect(nonces.size).toBeLessThanOrEqual(5);
    // The document stays answerable: a proof over the reused nonce still works (with its own request hash).
    const request = await proofRequestFor(PROVEN);
    expect(nonces.has(request.nonce)).toBe(true);
    const proven = await post(PROVEN, { ...body, proof: await jwtProof(request) });
    expect(proven.status).toBe(402);
  });

  it('the JSON form with an identity access token works, and must name the token subject', async () => {
    const registration = (await post('/agent/identity', { type: 'anonymous' }).then((r) => r.json())) as { registration_id: string; identity_assertion: string };
    const token = (await fetch(`${service.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: registration.identity_assertion }),
    }).then((r) => r.json())) as { access_token: string };
    const request = await proofRequestFor(PROVEN);
    const claims = { route: request.route, aud: request.audience, nonce: request.nonce, request_hash: request.request_hash, exp: Math.floor(Date.now() / 1000) + 300 };
    const wrongSubject = await post(PROVEN, { ...body, proof: { ...claims, sub: 'reg_someone_else', access_token: token.access_token } });
    expect(((await wrongSubject.json()) as { error: string }).error).toBe('proof_subject_mismatch');
    const ok = await post(PROVEN, { ...body, proof: { ...claims, sub: registration.registration_id, access_token: token.access_token } });
    expect(ok.status).toBe(402);
  });

  const attacks: [string, (r: ProofRequest) => Promise<unknown>, unknown, string][] = [
    ['another route', (r) => jwtProof(r, { route: `POST ${X401}` }), body, 'proof_route_mismatch'],
    ['another audience', (r) => jwtProof(r, { aud: 'evil.example' }), body, 'proof_audience_mismatch'],
    ['another request (body changed)', (r) => jwtProof(r), { urls: ['https://example.com/other'] }, 'proof_request_hash_mismatch'],
    ['an expired proof', (r) => jwtProof(r, {}, '-1m'), body, 'proof_expired'],
    ['a nonce we never issued', (r) => jwtProof(r, { nonce: crypto.randomUUID() }), body, 'proof_nonce_unknown_or_used'],
    ['a subject that is not the signing key', (r) => jwtProof(r, { sub: 'someone' }), body, 'proof_subject_not_key'],
    ['an unsigned proof', async (r) => `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ ...r })).toString('base64url')}.`, body, 'proof_jwk_missing'],
  ];
  for (const [name, makeProof, sentBody, reason] of attacks) {
    it(`rejects ${name}`, async () => {
      const request = await proofRequestFor(PROVEN);
      const response = await post(PROVEN, { ...(sentBody as object), proof: await makeProof(request) });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: string }).error).toBe(reason);
    });
  }
});
