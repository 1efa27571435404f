import { describe, expect, it } from 'vitest';
import { Challenge } from 'mppx';
import { encodeAbiParameters } from 'viem';
import { fakeChains, fakeContext, response, stubEvmChain, stubFetch } from '../../kit/fake-context.ts';
import { b402Preflight } from './index.ts';

const URL = 'https://api.example.com/paid/resource';
const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const accept = { scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: USDC, payTo: PAY_TO, maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } };
const challenge = (accepts: unknown[]) => ({ x402Version: 2, resource: { url: URL }, accepts });
const quote = (body: object, headers: Record<string, string> = {}) =>
  response(body, { status: 402, headers: { 'payment-required': Buffer.from(JSON.stringify(body)).toString('base64'), 'cache-control': 'no-store', ...headers } });

const preflight = async (answer: Parameters<typeof stubFetch>[0][string], input: Record<string, unknown> = { url: URL }, extra = {}) => {
  const out = await b402Preflight.run(b402Preflight.input.parse(input), fakeContext({ fetch: stubFetch({ [URL]: answer }), ...extra }));
  expect(b402Preflight.output.safeParse(out).success).toBe(true);
  return out;
};

describe('b402-preflight', () => {
  it('go: a well-formed USDC requirement on Base', async () => {
    const out = await preflight(quote(challenge([accept])));
    expect(out).toMatchObject({ go: true, reasons: [], recommended: 'x402 exact@eip155:8453', x402_version: 2, http_status: 402 });
    expect(out.options[0]).toMatchObject({ caip2: 'eip155:8453', amount_usd: '0.01', asset_symbol: 'USDC', facilitator_supported: true, ok: true });
  });

  it('no-go with reasons: unknown asset, insane amount and timeout, zero payTo, unsettled network', async () => {
    const bad = { ...accept, network: 'eip155:999', asset: '0x0000000000000000000000000000000000000001', payTo: '0x0000000000000000000000000000000000000000', maxTimeoutSeconds: 86_400 };
    const pricey = { ...accept, amount: '500000000' };
    const out = await preflight(quote(challenge([bad, pricey])));
    expect(out.go).toBe(false);
    expect(out.options[0]!.problems).toEqual([
      'asset 0x0000000000000000000000000000000000000001 is not a known stablecoin on eip155:999',
      'maxTimeoutSeconds 86400 is not between 1 and 3600',
      'payTo 0x0000000000000000000000000000000000000000 is not a valid recipient on eip155:999',
      'no known facilitator settles eip155:999',
    ]);
    expect(out.options[1]!.problems).toEqual(['amount 500.00 USD is over 100 USD for one call']);
    expect(out.reasons).toHaveLength(5);
  });

  it('an x402 v1 body with a v1 network name, and b402 on BNB Chain (18-decimal USDT)', async () => {
    const v1 = await preflight(response({ x402Version: 1, accepts: [{ scheme: 'exact', network: 'base', maxAmountRequired: '20000', asset: USDC, payTo: PAY_TO, maxTimeoutSeconds: 60 }] }, { status: 402 }));
    expect(v1).toMatchObject({ go: true, x402_version: 1, options: [{ caip2: 'eip155:8453', amount_usd: '0.02' }] });
    const bnb = await preflight(quote(challenge([{ ...accept, network: 'eip155:56', asset: '0x55d398326f99059fF775485246999027B3197955', amount: '10000000000000000' }])));
    expect(bnb.options[0]).toMatchObject({ asset_symbol: 'USDT', amount_usd: '0.01', ok: true });
  });

  it("the payer's balance on a chain read here must cover the amount", async () => {
    const chain = stubEvmChain({ eth_call: encodeAbiParameters([{ type: 'uint256' }], [5_000n]) });
    const out = await preflight(quote(challenge([accept])), { url: URL, payer: PAYER }, { chains: fakeChains({ evm: [chain] }) });
    expect(out).toMatchObject({ go: false, options: [{ payer_balance_atomic: '5000', problems: ['the payer holds 5000 atomic units, less than 10000'] }] });
  });

  it('MPP challenges are decoded and checked; malformed 402s and non-402 answers are no-go', async () => {
    const expires = new Date(Date.parse('2025-06-01T12:05:00.000Z')).toISOString();
    const mpp = Challenge.serialize(Challenge.from({ id: 'abc', realm: 'api.example.com', method: 'evm', intent: 'charge', expires, request: { amount: '10000', currency: USDC, recipient: PAY_TO, methodDetails: { chainId: 8453 } } }));
    const out = await preflight(response({}, { status: 402, headers: { 'www-authenticate': mpp } }));
    expect(out).toMatchObject({ go: true, recommended: 'mpp evm/charge', mpp: [{ valid: true, amount_atomic: '10000', chain_id: 8453 }] });
    const lapsed = Challenge.serialize(Challenge.from({ id: 'abc', realm: 'r', method: 'evm', intent: 'charge', expires: '2025-06-01T11:00:00.000Z', request: { amount: '0', recipient: 'nobody' } }));
    const bad = await preflight(response({}, { status: 402, headers: { 'www-authenticate': lapsed } }));
    expect(bad.go).toBe(false);
    expect(bad.mpp[0]!.problems).toEqual(['expired at 2025-06-01T11:00:00.000Z', 'request.amount 0 is not a positive integer of atomic units', 'request.recipient nobody is not an address']);
    expect(await preflight(response('nope', { status: 402, headers: { 'payment-required': 'not base64 json!' } }))).toMatchObject({ go: false });
    expect((await preflight(response('<html>free</html>'))).reasons[0]).toMatch(/answered 200, not 402/);
  });
});
