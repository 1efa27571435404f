import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { startOpenAiDouble, type OpenAiDouble } from './helpers/openai-double.ts';
import { paidPostJson, quote } from './helpers/payments.ts';
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

  it('quotes upto 1.00 on EVM next to exact 0.01', async () => {
    const required = await quote(`${service.url}/api/v1/paid/inference`, { method: 'POST' });
    const evm = required.accepts.filter((a) => a.network === chain.network);
    expect(evm.map((a) => [a.scheme, a.amount])).toEqual([
      ['upto', '1000000'],
      ['exact', '10000'],
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
