import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { createSIWxPayload, encodeSIWxHeader, type CompleteSIWxInfo, type SIWxExtension } from '@x402/extensions/sign-in-with-x';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { signPayment } from './helpers/payments.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

let chain: DevChain;
let service: RunningService;
let client: Client;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ chain });
  client = new Client({ name: 'free-tier-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await service?.stop();
  await chain?.stop();
});

type Result = { isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };
const call = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as Result;

/** Answers the 402's sign-in-with-x challenge with the official SIWx client helper. */
async function proveWallet(required: PaymentRequired, key: `0x${string}`, requestUrl: string) {
  const extension = (required.extensions as Record<string, SIWxExtension>)['sign-in-with-x']!;
  const chainInfo = extension.supportedChains[0]!;
  const info: CompleteSIWxInfo = { ...extension.info, chainId: chainInfo.chainId, type: chainInfo.type };
  return createSIWxPayload(info, privateKeyToAccount(key), requestUrl);
}

const task = { task: 'server time echo timestamp' };

describe('free tiers with a signed wallet proof (Sign-In-With-X)', () => {
  it('route_task: 3 free queries per wallet per day, top-1 only; the 4th asks for payment; paid returns the ranked list', async () => {
    const mcpUrl = `${service.url}/mcp`;
    const wallet = generatePrivateKey();
    for (let i = 1; i <= 3; i++) {
      const challenge = (await call('route_task', task)).structuredContent as PaymentRequired;
      expect(challenge.extensions).toHaveProperty('sign-in-with-x');
      const free = await call('route_task', task, { 'sign-in-with-x': await proveWallet(challenge, wallet, mcpUrl) });
      expect(free.isError).toBeFalsy();
      expect(free.structuredContent).toMatchObject({ tier: 'free', count: 1, limit: 1 });
      expect(free._meta?.['percall/free-tier']).toMatchObject({ wallet: privateKeyToAccount(wallet).address, remaining_today: 3 - i });
    }
    const challenge = (await call('route_task', task)).structuredContent as PaymentRequired;
    const exhausted = await call('route_task', task, { 'sign-in-with-x': await proveWallet(challenge, wallet, mcpUrl) });
    expect(exhausted.isError).toBe(true);
    expect((exhausted.structuredContent as PaymentRequired).error).toBe('free_tier_exhausted');

    // Another wallet has its own quota.
    const other = await call('route_task', task, { 'sign-in-with-x': await proveWallet(challenge, generatePrivateKey(), mcpUrl) });
    expect(other.structuredContent).toMatchObject({ tier: 'free', count: 1 });

    // Paid: the ranked list (both matching tools), charged the tool price.
    const before = await balances(chain);
    const paid = await call('route_task', task, { 'x402/payment': await signPayment(chain.buyer.privateKey, challenge) });
    const result = paid.structuredContent as { tier: string; limit: number; recommendations: { id: string }[] };
    expect(result.tier).toBe('paid');
    expect(result.limit).toBe(3);
    expect(result.recommendations.map((r) => r.id).slice(0, 2)).toEqual(['time', 'echo']);
    expect(before.buyer - (await balances(chain)).buyer).toBe(10_000n);
  });

  it('agent_route: the free call returns the top-1, the paid call the top three', async () => {
    const challenge = (await call('agent_route', task)).structuredContent as PaymentRequired;
    const free = await call('agent_route', task, { 'sign-in-with-x': await proveWallet(challenge, generatePrivateKey(), `${service.url}/mcp`) });
    expect((free.structuredContent as { recommendations: unknown[] }).recommendations).toHaveLength(1);
    const paid = await call('agent_route', task, { 'x402/payment': await signPayment(chain.buyer.privateKey, challenge) });
    expect((paid.structuredContent as { recommendations: unknown[] }).recommendations.length).toBeGreaterThan(1);
  });

  it('a proof is sound: replayed, forged, or made for another tool, it buys nothing', async () => {
    const mcpUrl = `${service.url}/mcp`;
    const challenge = (await call('route_task', task)).structuredContent as PaymentRequired;
    const proof = await proveWallet(challenge, generatePrivateKey(), mcpUrl);
    expect((await call('route_task', task, { 'sign-in-with-x': proof })).isError).toBeFalsy();
    const replay = await call('route_task', task, { 'sign-in-with-x': proof });
    expect((replay.structuredContent as PaymentRequired).error).toBe('invalid_siwx_nonce_reused');

    // Claims the buyer's address, signed by someone else.
    const forged = { ...(await proveWallet(challenge, generatePrivateKey(), mcpUrl)), address: chain.buyer.address };
    expect(((await call('route_task', task, { 'sign-in-with-x': forged })).structuredContent as PaymentRequired).error).toBe('invalid_siwx_signature');

    const agentChallenge = (await call('agent_route', task)).structuredContent as PaymentRequired;
    const elsewhere = await proveWallet(agentChallenge, generatePrivateKey(), mcpUrl);
    expect(((await call('route_task', task, { 'sign-in-with-x': elsewhere })).structuredContent as PaymentRequired).error).toBe('invalid_siwx_resource_mismatch');
  });

  it('the same free tier over HTTP with the SIGN-IN-WITH-X header', async () => {
    const url = `${service.url}/api/v1/paid/route-task`;
    const body = JSON.stringify(task);
    const unpaid = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(unpaid.status).toBe(402);
    const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!);
    const proof = await proveWallet(required, generatePrivateKey(), url);
    const free = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'sign-in-with-x': encodeSIWxHeader(proof) } });
    expect(free.status).toBe(200);
    expect(free.headers.get('free-tier-remaining')).toBe('2');
    expect(await free.json()).toMatchObject({ tier: 'free', count: 1 });
  });
});
