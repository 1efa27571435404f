import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { getRequestListener } from '@hono/node-server';
import { x402ResourceServer } from '@x402/core/server';
import { authorizationTypes } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { Challenge, Credential, PaymentRequest, Receipt } from 'mppx';
import { createMppClient } from '../src/client/paying-fetch.ts';
import { createPublicClient, getAddress, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { DevChain } from '../src/devchain/stack.ts';
import { createLocalFacilitator } from '../src/payments/facilitator.ts';
import { paymentKey } from '../src/payments/payment-key.ts';
import {
  MppRail,
  challengeNonce,
  tempoConfigFromEnv,
  type ChallengeLedger,
  type MppRailOptions,
  type MppRoute,
} from '../src/payments/mpp/index.ts';
import { hasPaymentCredential, problemResponse, receiptHeader, receiptHeaders } from '../src/http/mpp-wire.ts';
import { localSite } from './helpers/local-site.ts';
import { balances, startTestChain } from './helpers/service.ts';

const SECRET = 'mpp-test-secret-key-0123456789abcdef0123456789';
const REALM = 'api.percall.test';
const PRICE = 10_000n;

class MemoryLedger implements ChallengeLedger {
  readonly used = new Map<string, Date>();
  async consume(id: string, expiresAt: Date): Promise<boolean> {
    if (this.used.has(id)) return false;
    this.used.set(id, expiresAt);
    return true;
  }
}

interface Door {
  route: MppRoute;
  price: bigint;
  description: string;
}

const DOORS: Record<string, Door> = {
  '/a': { route: { method: 'GET', path: '/a', id: 'a:http' }, price: PRICE, description: 'Route A' },
  '/b': { route: { method: 'GET', path: '/b', id: 'b:http' }, price: PRICE, description: 'Route B' },
  '/c': { route: { method: 'GET', path: '/c', id: 'c:http' }, price: 2n * PRICE, description: 'Route C' },
};

let chain: DevChain;
let facilitator: ReturnType<typeof createLocalFacilitator>;
let ledger: MemoryLedger;
let rail: MppRail;
let site: Awaited<ReturnType<typeof localSite>>;
let served = 0;

function railOptions(overrides: Partial<MppRailOptions> = {}): MppRailOptions {
  return {
    secretKey: SECRET,
    realm: REALM,
    network: chain.network,
    chainId: chain.chainId,
    asset: chain.usdc,
    assetName: chain.usdcName,
    assetVersion: chain.usdcVersion,
    decimals: 6,
    payTo: chain.payTo,
    challenges: ledger,
    expiresInSeconds: 300,
    maxTimeoutSeconds: 300,
    ...overrides,
  };
}

/** What the payment gate does, reduced: verify credential → facilitator verify → product → settle → receipt. */
async function handler(request: Request): Promise<Response> {
  const door = DOORS[new URL(request.url).pathname];
  if (!door) return new Response('not found', { status: 404 });
  const { route, price, description } = door;
  if (!hasPaymentCredential(request.headers.get('authorization'))) {
    return problemResponse(await rail.problem('payment-required', route, price, description));
  }
  const verified = await rail.verify(request, route, price, description);
  if (!verified.ok) return problemResponse(verified.problem);
  if (verified.method !== 'evm') throw new Error('tempo is not served here');

  const check = await facilitator.verify(verified.payload, verified.requirements);
  if (!check.isValid) {
    return problemResponse(await rail.problem('verification-failed', route, price, description, check.invalidReason));
  }
  const output = { door: route.path, n: ++served };
  const settlement = await facilitator.settle(verified.payload, verified.requirements);
  if (!settlement.success) {
    return problemResponse(await rail.problem('verification-failed', route, price, description, settlement.errorReason));
  }
  return new Response(JSON.stringify(output), {
    status: 200,
    headers: { 'Content-Type': 'application/json', ...(await receiptHeaders(settlement)) },
  });
}

// The official mppx client; our anvil chain and test token are named with their EIP-712 domain.
function buyerClient() {
  return createMppClient(chain.buyer.privateKey, { chainId: chain.chainId, address: chain.usdc, name: chain.usdcName, version: chain.usdcVersion });
}

/** A 402 from the site, then a credential for it from the official client, without sending it. */
async function credentialFor(path: string): Promise<string> {
  const response = await fetch(`${site.url}${path}`);
  expect(response.status).toBe(402);
  return buyerClient().createCredential(response);
}

function payWith(path: string, authorization: string): Promise<Response> {
  return fetch(`${site.url}${path}`, { headers: { Authorization: authorization } });
}

async function problemOf(response: Response): Promise<{ type: string; title: string; status: number; detail: string; challengeId: string }> {
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.headers.get('cache-control')).toBe('no-store');
  // Every problem carries a fresh challenge the client can pay instead.
  const fresh = Challenge.deserialize(response.headers.get('www-authenticate')!);
  const body = (await response.json()) as { type: string; title: string; status: number; detail: string; challengeId: string };
  expect(body.challengeId).toBe(fresh.id);
  expect(body.status).toBe(response.status);
  return body;
}

function tamper(credential: string, change: (c: Credential.Credential) => void): string {
  const parsed = Credential.deserialize(credential);
  change(parsed);
  return Credential.serialize(parsed);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

beforeAll(async () => {
  chain = await startTestChain();
  facilitator = createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: chain.facilitatorKey });
  ledger = new MemoryLedger();
  rail = new MppRail(railOptions());
  site = await localSite(getRequestListener(handler));
});

afterAll(async () => {
  site?.close();
  await chain?.stop();
});

describe('MPP rail: challenges', () => {
  it('answers 402 with a Payment challenge for exactly the route amount, chain, token and recipient', async () => {
    const response = await fetch(`${site.url}/a`);
    expect(response.status).toBe(402);
    const challenge = Challenge.deserialize(response.headers.get('www-authenticate')!);
    expect(challenge).toMatchObject({ realm: REALM, method: 'evm', intent: 'charge', description: 'Route A' });
    expect(challenge.request).toEqual({
      amount: '10000',
      currency: getAddress(chain.usdc),
      recipient: getAddress(chain.payTo),
      methodDetails: { chainId: 31337, credentialTypes: ['authorization'], decimals: 6 },
    });
    const expiresIn = new Date(challenge.expires!).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(290_000);
    expect(expiresIn).toBeLessThanOrEqual(300_000);
    // The route is bound in `opaque` (HMAC-covered): the door id and mppx's scope (method and path).
    expect(PaymentRequest.deserialize(challenge.opaque!)).toEqual({ route: 'a:http', _mppx_scope: 'GET /a' });
    expect(Challenge.verify(challenge, { secretKey: SECRET })).toBe(true);
    expect(Challenge.verify(challenge, { secretKey: `${SECRET}-other` })).toBe(false);
    const problem = await problemOf(response);
    expect(problem).toMatchObject({ type: 'https://paymentauth.org/problems/payment-required', title: 'Payment Required', status: 402 });
  });

  it('prices with atomic units: the challenge amount is the bigint asked for', async () => {
    const header = await rail.challengeHeader(DOORS['/c']!.route, 1_234_567n);
    expect(Challenge.deserialize(header).request.amount).toBe('1234567');
  });
});

describe('MPP rail: paid with the official mppx client on a real chain', () => {
  it('pays: 200, Payment-Receipt with the settlement transaction, Cache-Control private, balances move by exactly the price', async () => {
    const before = await balances(chain);
    const response = await buyerClient().fetch(`${site.url}/a`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ door: '/a' });
    expect(response.headers.get('cache-control')).toBe('private');

    const receipt = Receipt.fromResponse(response);
    expect(receipt).toMatchObject({ method: 'evm', status: 'success' });
    expect(receipt.reference).toMatch(/^0x[0-9a-f]{64}$/);
    expect(Number.isNaN(Date.parse(receipt.timestamp))).toBe(false);
    const onChain = await createPublicClient({ transport: http(chain.rpcUrl) }).getTransactionReceipt({ hash: receipt.reference as Hex });
    expect(onChain.status).toBe('success');

    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(PRICE);
    expect(after.payTo - before.payTo).toBe(PRICE);
  });

  it('rejects a replay of the same credential as an already used challenge, charging once', async () => {
    const credential = await credentialFor('/a');
    const before = await balances(chain);
    const first = await payWith('/a', credential);
    expect(first.status).toBe(200);
    const replay = await payWith('/a', credential);
    expect(replay.status).toBe(402);
    const problem = await problemOf(replay);
    expect(problem.type).toBe('https://paymentauth.org/problems/invalid-challenge');
    expect(problem.detail).toMatch(/already been used/);
    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(PRICE);
  });

  it('rejects tampered challenges (amount, expiry, recipient) as invalid-challenge and charges nothing', async () => {
    const credential = await credentialFor('/a');
    const before = await balances(chain);
    const tampered = [
      tamper(credential, (c) => void (c.challenge.request.amount = '1')),
      tamper(credential, (c) => void (c.challenge.expires = new Date(Date.now() + 86_400_000).toISOString())),
      tamper(credential, (c) => void (c.challenge.request.recipient = getAddress(chain.buyer.address))),
    ];
    for (const authorization of tampered) {
      const response = await payWith('/a', authorization);
      expect(response.status).toBe(402);
      const problem = await problemOf(response);
      expect(problem.type).toBe('https://paymentauth.org/problems/invalid-challenge');
      expect(problem.detail).toMatch(/not issued by this server/);
    }
    expect(await balances(chain)).toEqual(before);
    // The untampered credential is still good: nothing consumed it.
    expect((await payWith('/a', credential)).status).toBe(200);
  });

  it('rejects a credential for route A on route B (same price) and on route C (other price)', async () => {
    const credential = await credentialFor('/a');
    const before = await balances(chain);
    for (const path of ['/b', '/c']) {
      const response = await payWith(path, credential);
      expect(response.status).toBe(402);
      const problem = await problemOf(response);
      expect(problem.type).toBe('https://paymentauth.org/problems/invalid-challenge');
      expect(problem.detail).toMatch(/does not match this route/);
    }
    expect(await balances(chain)).toEqual(before);
  });

  it('rejects an expired challenge with payment-expired (issued by another instance sharing the secret)', async () => {
    const shortLived = new MppRail(railOptions({ expiresInSeconds: 1 }));
    const header = await shortLived.challengeHeader(DOORS['/a']!.route, PRICE, 'Route A');
    const credential = await buyerClient().createCredential(new Response(null, { status: 402, headers: { 'WWW-Authenticate': header } }));
    await sleep(1_100);
    const result = await rail.verify({ authorization: credential }, DOORS['/a']!.route, PRICE);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem).toMatchObject({ status: 402, type: 'https://paymentauth.org/problems/payment-expired', title: 'Payment Expired' });
    expect(Challenge.deserialize(result.problem.wwwAuthenticate).id).toBe(result.problem.challengeId);
  });

  it('accepts a challenge issued by another instance with the same secret, and not one with another secret', async () => {
    const other = new MppRail(railOptions());
    const header = await other.challengeHeader(DOORS['/b']!.route, PRICE);
    const credential = await buyerClient().createCredential(new Response(null, { status: 402, headers: { 'WWW-Authenticate': header } }));
    const before = await balances(chain);
    expect((await payWith('/b', credential)).status).toBe(200);
    expect((await balances(chain)).payTo - before.payTo).toBe(PRICE);

    const stranger = new MppRail(railOptions({ secretKey: `${SECRET}-stranger` }));
    const foreign = await buyerClient().createCredential(
      new Response(null, { status: 402, headers: { 'WWW-Authenticate': await stranger.challengeHeader(DOORS['/b']!.route, PRICE) } }),
    );
    const response = await payWith('/b', foreign);
    expect(response.status).toBe(402);
    expect((await problemOf(response)).type).toBe('https://paymentauth.org/problems/invalid-challenge');
  });

  it('rejects malformed credentials and authorizations not bound to the challenge', async () => {
    const malformed = await payWith('/a', 'Payment not-base64-json');
    expect(malformed.status).toBe(402);
    expect((await problemOf(malformed)).type).toBe('https://paymentauth.org/problems/malformed-credential');

    const credential = Credential.deserialize(await credentialFor('/a'));
    const noSignature = Credential.serialize({ ...credential, payload: { ...(credential.payload as object), signature: 'nope' } });
    const invalidPayload = await payWith('/a', noSignature);
    expect(invalidPayload.status).toBe(402);
    expect((await problemOf(invalidPayload)).type).toBe('https://paymentauth.org/problems/invalid-payload');

    // A correctly signed EIP-3009 authorization with an x402-style random nonce, wrapped as an MPP credential.
    const account = privateKeyToAccount(chain.buyer.privateKey);
    const nonce = `0x${randomBytes(32).toString('hex')}` as Hex;
    const payload = credential.payload as Record<string, string>;
    const signature = await account.signTypedData({
      domain: { name: chain.usdcName, version: chain.usdcVersion, chainId: chain.chainId, verifyingContract: chain.usdc },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: account.address,
        to: getAddress(chain.payTo),
        value: PRICE,
        validAfter: 0n,
        validBefore: BigInt(payload.validBefore!),
        nonce,
      },
    });
    const rewrapped = Credential.serialize({ ...credential, payload: { ...payload, nonce, signature } });
    const response = await payWith('/a', rewrapped);
    expect(response.status).toBe(402);
    const problem = await problemOf(response);
    expect(problem.type).toBe('https://paymentauth.org/problems/verification-failed');
    expect(problem.detail).toMatch(/challenge hash mismatch/);
  });
});

describe('MPP rail: the verified credential is an x402 exact payment', () => {
  it('maps to the x402 quote and to the same EIP-3009 replay key as x402', async () => {
    const credential = await credentialFor('/a');
    const challenge = Credential.deserialize(credential).challenge;
    const isolated = new MppRail(railOptions({ challenges: new MemoryLedger() }));
    const result = await isolated.verify({ authorization: credential }, DOORS['/a']!.route, PRICE);
    expect(result.ok).toBe(true);
    if (!result.ok || result.method !== 'evm') return;

    expect(result.challengeId).toBe(challenge.id);
    expect(result.expiresAt.toISOString()).toBe(new Date(challenge.expires!).toISOString());
    expect(result.payer).toBe(getAddress(chain.buyer.address));
    expect(result.source).toBe(`did:pkh:eip155:31337:${getAddress(chain.buyer.address)}`);
    const nonce = challengeNonce(challenge);
    expect(paymentKey(result.payload)).toBe(
      `eip3009:${chain.network}:${chain.usdc.toLowerCase()}:${chain.buyer.address.toLowerCase()}:${nonce.toLowerCase()}`,
    );

    // The x402 rail's own quote for the same price accepts the payload (what X402Rail.match does).
    const server = new x402ResourceServer(facilitator);
    server.register(chain.network, new ExactEvmScheme());
    await server.initialize();
    const [quote] = await server.buildPaymentRequirements({
      scheme: 'exact',
      network: chain.network,
      payTo: chain.payTo,
      price: { amount: PRICE.toString(), asset: chain.usdc, extra: { name: chain.usdcName, version: chain.usdcVersion } },
      maxTimeoutSeconds: 300,
    });
    expect(server.findMatchingRequirements([quote!], result.payload)).toEqual(quote);
    expect((await facilitator.verify(result.payload, quote!)).isValid).toBe(true);
  });

  it('maps gate failures to paymentauth problem types', async () => {
    const route = DOORS['/a']!.route;
    const kinds = await Promise.all([
      rail.gateFailureProblem({ category: 'payment_verification_failed', reason: 'payment_already_used' }, route, PRICE),
      rail.gateFailureProblem({ category: 'payment_verification_failed', reason: 'payment_authorization_expired' }, route, PRICE),
      rail.gateFailureProblem({ category: 'payment_verification_failed', reason: 'insufficient_funds' }, route, PRICE),
      rail.gateFailureProblem({ category: 'settlement_failed', reason: 'transaction_failed' }, route, PRICE),
      rail.gateFailureProblem({ category: 'payment_processing_error', reason: 'unexpected' }, route, PRICE),
    ]);
    expect(kinds.map((p) => [p.status, p.type.replace('https://paymentauth.org/problems/', '')])).toEqual([
      [402, 'invalid-challenge'],
      [402, 'payment-expired'],
      [402, 'verification-failed'],
      [402, 'verification-failed'],
      [500, 'internal-payment-error'],
    ]);
    expect(kinds[2]!.detail).toMatch(/insufficient_funds/);
  });

  it('recognises a Payment credential exactly as mppx does', () => {
    const headers = ['Payment abc', 'payment  abc', 'Bearer x, Payment abc', 'Bearer x,Payment abc', 'Payment', 'Paymentabc', 'Bearer Payment abc', ' Payment\tabc', 'Basic Zm9v', ''];
    for (const header of headers) expect(hasPaymentCredential(header), header).toBe(Credential.extractPaymentScheme(header) !== null);
  });

  it('merges private into an existing Cache-Control', async () => {
    const settlement = { success: true, transaction: `0x${'ab'.repeat(32)}`, network: chain.network } as const;
    expect((await receiptHeaders(settlement))['Cache-Control']).toBe('private');
    expect((await receiptHeaders(settlement, 'public, max-age=60'))['Cache-Control']).toBe('max-age=60, private');
    expect((await receiptHeaders(settlement, 'no-store'))['Cache-Control']).toBe('no-store, private');
    const receipt = Receipt.deserialize(await receiptHeader(settlement, new Date('2026-01-02T03:04:05.000Z')));
    expect(receipt).toEqual({ method: 'evm', reference: settlement.transaction, status: 'success', timestamp: '2026-01-02T03:04:05.000Z' });
  });
});

describe('MPP rail: tempo as a production option', () => {
  it('reads its config from the environment', () => {
    expect(tempoConfigFromEnv({})).toBeUndefined();
    expect(tempoConfigFromEnv({ MPP_TEMPO_RECIPIENT: chain.payTo, MPP_TEMPO_TESTNET: '1' })).toEqual({ recipient: chain.payTo, testnet: true });
    expect(() => tempoConfigFromEnv({ MPP_TEMPO_RECIPIENT: 'nope' })).toThrow(/MPP_TEMPO_RECIPIENT/);
  });

  it('offers a tempo challenge beside the evm one (no Tempo chain needed to issue it)', async () => {
    const both = await MppRail.create(railOptions({ tempo: tempoConfigFromEnv({ MPP_TEMPO_RECIPIENT: chain.payTo, MPP_TEMPO_TESTNET: '1' }) }));
    expect(both.methods).toEqual(['evm', 'tempo']);
    const challenges = Challenge.deserializeList(await both.challengeHeader(DOORS['/a']!.route, PRICE, 'Route A'));
    expect(challenges.map((c) => c.method)).toEqual(['evm', 'tempo']);
    const tempoChallenge = challenges[1]!;
    expect(tempoChallenge.request).toMatchObject({
      amount: '10000',
      currency: '0x20c0000000000000000000000000000000000000',
      recipient: chain.payTo,
      methodDetails: { chainId: 42431 },
    });
    expect(Challenge.verify(tempoChallenge, { secretKey: SECRET })).toBe(true);
  });
});
