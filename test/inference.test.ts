import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { startOpenAiDouble, type OpenAiDouble } from './helpers/openai-double.ts';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { createPublicClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEV_ROLES, mintUsdc, usdcBalance } from '../src/devchain/contracts.ts';
import { approvePermit2 } from '../src/devchain/permit2.ts';
import { paidPostJson, paymentHeader, quote } from './helpers/payments.ts';
import { balances, capturingLogger, startTestChain, startTestService } from './helpers/service.ts';

const API_KEY = 'sk-test-upstream-key-0123456789';
const messages = [{ role: 'user', content: 'What is HTTP 402?' }];

describe('inference through an OpenAI-compatible upstream (exact on EVM)', () => {
  let chain: DevChain;
  let service: RunningService;
  let upstream: OpenAiDouble;
  const logs = capturingLogger();

  beforeAll(async () => {
    upstream = await startOpenAiDouble(API_KEY);
    chain = await startTestChain();
    service = await startTestService({ chain, log: logs.log, env: { INFERENCE_API_URL: upstream.url, INFERENCE_API_KEY: API_KEY, LOG_LEVEL: 'trace' } });
  });
  afterAll(async () => {
    await service?.stop();
    await chain?.stop();
    upstream?.close();
  });

  it('quotes upto 1.00 on EVM next to exact 0.01, and a channel voucher of up to 1.00 after them', async () => {
    const required = await quote(`${service.url}/api/v1/paid/inference`, { method: 'POST' });
    const evm = required.accepts.filter((a) => a.network === chain.network);
    expect(evm.map((a) => [a.scheme, a.amount])).toEqual([
      ['upto', '1000000'],
      ['exact', '10000'],
      ['batch-settlement', '1000000'],
    ]);
  });

  it('charges exactly 0.01 for a completion paid with exact, and sends the key only upstream', async () => {
    const before = await balances(chain);
    const response = await paidPostJson(chain, `${service.url}/api/v1/paid/inference`, { model: 'openai/gpt-4.1-mini', messages });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { object: string; choices: { message: { content: string } }[] };
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0]!.message.content).toBe('Pay first.');
    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(10_000n);
    expect(after.payTo - before.payTo).toBe(10_000n);
    const sent = upstream.requests.at(-1)!;
    expect(sent.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.body.model).toBe('openai/gpt-4.1-mini');
    expect(logs.lines.join('\n')).not.toContain(API_KEY);
  });

  function uptoFetch(buyerKey: Hex): typeof fetch {
    const client = new x402Client();
    // Only the upto scheme: the client must take the `upto` offer, authorizing up to 1.00.
    client.register(chain.network, new UptoEvmScheme(toClientEvmSigner(privateKeyToAccount(buyerKey), createPublicClient({ transport: http(chain.rpcUrl) }))));
    client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    client.onAfterPaymentCreation(async ({ paymentPayload }) => void (lastUpto = paymentPayload));
    return wrapFetchWithPayment(fetch, client);
  }
  let lastUpto: PaymentPayload | undefined;

  it('authorizes up to 1.00 with upto and is charged exactly 0.01, once', async () => {
    const before = await balances(chain);
    const response = await uptoFetch(chain.buyer.privateKey)(`${service.url}/api/v1/paid/inference`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4.1-mini', messages }),
    });
    expect(response.status).toBe(200);
    expect(lastUpto!.accepted).toMatchObject({ scheme: 'upto', amount: '1000000' });
    const settlement = decodePaymentResponseHeader(response.headers.get('payment-response')!);
    expect(settlement.amount).toBe('10000');
    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(10_000n);
    expect(after.payTo - before.payTo).toBe(10_000n);

    const replay = await fetch(`${service.url}/api/v1/paid/inference`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...paymentHeader(lastUpto!) },
      body: JSON.stringify({ model: 'openai/gpt-4.1-mini', messages }),
    });
    expect(replay.status).toBe(402);
    expect(await balances(chain)).toEqual(after);
  });

  it('answers 412 permit2_allowance_required to an upto payer that never approved Permit2, charging nothing', async () => {
    const fresh = DEV_ROLES.spare;
    await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, fresh.address, 5_000_000n);
    const response = await uptoFetch(fresh.privateKey)(`${service.url}/api/v1/paid/inference`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4.1-mini', messages }),
    });
    expect(response.status).toBe(412);
    expect(decodePaymentRequiredHeader(response.headers.get('payment-required')!).error).toBe('permit2_allowance_required');
    expect(await usdcBalance(chain.rpcUrl, chain.usdc, fresh.address)).toBe(5_000_000n);
    // After the one-time approval the same payer pays.
    await approvePermit2(chain.rpcUrl, chain.chainId, chain.usdc, fresh.privateKey);
    const paid = await uptoFetch(fresh.privateKey)(`${service.url}/api/v1/paid/inference`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4.1-mini', messages }),
    });
    expect(paid.status).toBe(200);
    expect(await usdcBalance(chain.rpcUrl, chain.usdc, fresh.address)).toBe(4_990_000n);
  });

  it('streams as server-sent events only after settlement', async () => {
    const response = await paidPostJson(chain, `${service.url}/api/v1/paid/chat-completion`, { model: 'openai/gpt-4.1-mini', messages, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('payment-response')).toBeTruthy();
    const text = await response.text();
    const events = text.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const content = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[] })
      .map((chunk) => chunk.choices[0]?.delta.content ?? '')
      .join('');
    expect(content).toBe('Pay first.');
  });

  it('charges nothing when the upstream fails, and does not pass its error text on', async () => {
    upstream.failWith = 500;
    try {
      const before = await balances(chain);
      const response = await paidPostJson(chain, `${service.url}/api/v1/paid/inference`, { model: 'openai/gpt-4.1-mini', messages });
      expect(response.status).toBe(502);
      expect(await response.text()).not.toContain('sk-secret');
      expect(await balances(chain)).toEqual(before);
      expect(logs.lines.join('\n')).not.toContain('sk-secret');
    } finally {
      upstream.failWith = undefined;
    }
  });

  it('rejects an unknown model before any payment', async () => {
    const response = await fetch(`${service.url}/api/v1/paid/inference`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nope/unknown', messages }),
    });
    expect(response.status).toBe(402);
    expect(JSON.parse(await response.text()).error).toMatch(/invalid_input/);
  });
});

describe('inference without an upstream', () => {
  let chain: DevChain;
  let service: RunningService;
  beforeAll(async () => {
    chain = await startTestChain();
    service = await startTestService({ chain });
  });
  afterAll(async () => {
    await service?.stop();
    await chain?.stop();
  });

  it('is not on sale: 501 without a quote, absent from discovery', async () => {
    const response = await fetch(`${service.url}/api/v1/paid/inference`, { method: 'POST' });
    expect(response.status).toBe(501);
    const catalogue = (await (await fetch(`${service.url}/.well-known/x402.json`)).json()) as { resources: { id: string }[] };
    expect(catalogue.resources.map((r) => r.id)).not.toContain('inference');
  });
});

describe('inference metered by tokens (operator option) on upto', () => {
  let chain: DevChain;
  let service: RunningService;
  let upstream: OpenAiDouble;

  beforeAll(async () => {
    upstream = await startOpenAiDouble(API_KEY);
    chain = await startTestChain();
    // 1.00 USD per 1,000 tokens: 39 tokens cost 0.039.
    service = await startTestService({ chain, env: { INFERENCE_API_URL: upstream.url, INFERENCE_API_KEY: API_KEY, INFERENCE_USD_PER_1K_TOKENS: '1.00' } });
  });
  afterAll(async () => {
    await service?.stop();
    await chain?.stop();
    upstream?.close();
  });

  async function payUpto(): Promise<{ response: Response; payload: PaymentPayload }> {
    let payload: PaymentPayload | undefined;
    const client = new x402Client();
    client.register(chain.network, new UptoEvmScheme(toClientEvmSigner(privateKeyToAccount(chain.buyer.privateKey), createPublicClient({ transport: http(chain.rpcUrl) }))));
    client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    client.onAfterPaymentCreation(async ({ paymentPayload }) => void (payload = paymentPayload));
    const response = await wrapFetchWithPayment(fetch, client)(`${service.url}/api/v1/paid/inference`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4.1-mini', messages }),
    });
    return { response, payload: payload! };
  }

  it('charges the usage, never more than the authorization', async () => {
    upstream.totalTokens = 39;
    let before = await balances(chain);
    expect((await payUpto()).response.status).toBe(200);
    let after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(39_000n);

    upstream.totalTokens = 5_000; // 5.00 USD of usage, capped at the 1.00 authorized
    before = after;
    const { response } = await payUpto();
    expect(response.status).toBe(200);
    expect(decodePaymentResponseHeader(response.headers.get('payment-response')!).amount).toBe('1000000');
    after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(1_000_000n);
  });

  it('a charge of 0 sends no transaction, and the authorization still buys one response only', async () => {
    upstream.totalTokens = 0;
    const before = await balances(chain);
    const { response, payload } = await payUpto();
    expect(response.status).toBe(200);
    const settlement = decodePaymentResponseHeader(response.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: true, amount: '0', transaction: '' });
    expect(await balances(chain)).toEqual(before);
    const replay = await fetch(`${service.url}/api/v1/paid/inference`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...paymentHeader(payload) },
      body: JSON.stringify({ model: 'openai/gpt-4.1-mini', messages }),
    });
    expect(replay.status).toBe(402);
    expect(decodePaymentRequiredHeader(replay.headers.get('payment-required')!).error).toBe('payment_already_used');
  });
});
