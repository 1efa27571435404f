import { describe, expect, it } from 'vitest';
import { Challenge } from 'mppx';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { SafeFetchError } from '../../../providers/safe-fetch.ts';
import { mppAdmissionGate } from './index.ts';

const URL = 'https://api.example.com/api/v1/paid/time';
const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const PAYER = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
const challenge = (fields: Partial<Parameters<typeof Challenge.from>[0]> = {}) =>
  Challenge.serialize(Challenge.from({ id: 'c1', realm: 'api.example.com', method: 'evm', intent: 'charge', expires: '2025-06-01T12:05:00.000Z', request: { amount: '10000', currency: USDC, recipient: PAY_TO, methodDetails: { chainId: 8453 } }, ...fields } as never));
const x402 = { x402Version: 2, resource: { url: URL }, accepts: [{ scheme: 'exact', network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', amount: '10000', asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', payTo: 'BYJtTQxe8F1Zi41bzWRStVPf57knpst3JqvZ7P5EMjex', maxTimeoutSeconds: 60 }] };

const gate = async (headers: Record<string, string>, input: Record<string, unknown> = {}, body: object = {}) => {
  const out = await mppAdmissionGate.run(mppAdmissionGate.input.parse({ resource_url: URL, payer: PAYER, ...input }), fakeContext({ fetch: stubFetch({ [URL]: response(body, { status: 402, headers }) }) }));
  expect(mppAdmissionGate.output.safeParse(out).success).toBe(true);
  return out;
};

describe('mpp-admission-gate', () => {
  it('admits an EVM payer on a valid evm charge within max_amount (also as did:pkh)', async () => {
    const out = await gate({ 'www-authenticate': challenge() }, { max_amount: '0.05' });
    expect(out).toMatchObject({ admitted: true, rail: 'mpp', method: 'evm', payer_kind: 'evm', matching_challenge: { id: 'c1', amount_atomic: '10000' }, reasons: [] });
    expect(await gate({ 'www-authenticate': challenge() }, { payer: `did:pkh:eip155:8453:${PAYER}` })).toMatchObject({ admitted: true });
  });

  it('denies with the reasons: over max_amount, expired, a card method, the wrong kind of payer', async () => {
    expect(await gate({ 'www-authenticate': challenge() }, { max_amount: '0.001' })).toMatchObject({ admitted: false, reasons: ['mpp evm/charge: costs 10000 atomic units, over max_amount 0.001'] });
    expect((await gate({ 'www-authenticate': challenge({ expires: '2025-06-01T11:00:00.000Z' }) })).reasons).toEqual(['mpp evm/charge: expired at 2025-06-01T11:00:00.000Z']);
    expect((await gate({ 'www-authenticate': challenge({ method: 'stripe' }) })).reasons).toEqual(['mpp stripe/charge: method stripe is not paid from a wallet address']);
    expect((await gate({ 'www-authenticate': challenge() }, { payer: 'alice' })).reasons).toEqual(['mpp evm/charge: method evm needs an EVM address']);
  });

  it('falls back to x402: a Solana payer on a Solana requirement; an EVM payer is denied there', async () => {
    const header = { 'payment-required': Buffer.from(JSON.stringify(x402)).toString('base64') };
    expect(await gate(header, { payer: 'BYJtTQxe8F1Zi41bzWRStVPf57knpst3JqvZ7P5EMjex' }, x402)).toMatchObject({ admitted: true, rail: 'x402', method: 'exact@solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', payer_kind: 'solana' });
    expect((await gate(header, {}, x402)).reasons).toEqual(['x402 exact@solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp: network solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp needs a Solana address']);
  });

  it('a malformed Payment header and a 402 without terms are denied; no answer is not charged', async () => {
    expect((await gate({ 'www-authenticate': 'Payment id=' })).challenges[0]).toMatchObject({ valid: false });
    expect((await gate({})).reasons).toEqual(['the 402 carries no MPP challenge and no x402 requirement']);
    const silent = fakeContext({ fetch: stubFetch({ [URL]: new SafeFetchError('timeout', 'slow') }) });
    await expect(mppAdmissionGate.run({ resource_url: URL, payer: PAYER }, silent)).rejects.toMatchObject({ status: 504 });
  });
});
