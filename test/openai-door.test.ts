// The OpenAI-compatible door and the text products, end to end on the dev chain with the
// OpenAI-wire double as the inference upstream: the official `openai` client through /openai/v1
// with an x402-paying fetch (exact and upto), streaming and not; upstream failures never settle;
// each text product paid once over HTTP (@x402/fetch) and once over MCP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import type { RunningService } from '../src/runtime.ts';
import { startOpenAiDouble, type OpenAiDouble } from './helpers/openai-double.ts';
import { paidPostJson, quote, signPayment } from './helpers/payments.ts';
import { balances, capturingLogger, startTestChain, startTestService } from './helpers/service.ts';

const API_KEY = 'sk-test-upstream-key-openai-door';
const MODEL = 'openai/gpt-4.1-mini';
const messages = [{ role: 'user' as const, content: 'What is HTTP 402?' }];

let chain: DevChain;
let service: RunningService;
let upstream: OpenAiDouble;
const logs = capturingLogger();

beforeAll(async () => {
  upstream = await startOpenAiDouble(API_KEY);
  chain = await startTestChain();
  service = await startTestService({ chain, log: logs.log, env: { INFERENCE_API_URL: upstream.url, INFERENCE_API_KEY: API_KEY, INFERENCE_TIMEOUT_MS: '1500', LOG_LEVEL: 'trace' } });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
  upstream?.close();
});

/** The official openai client, paying with @x402/fetch (exact, or only `upto`). */
function openai(scheme: 'exact' | 'upto' = 'exact'): OpenAI {
  const client = new x402Client();
  const signer = toClientEvmSigner(privateKeyToAccount(chain.buyer.privateKey), createPublicClient({ transport: http(chain.rpcUrl) }));
  if (scheme === 'upto') client.register(chain.network, new UptoEvmScheme(signer));
  else registerExactEvmScheme(client, { signer });
  client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
  return new OpenAI({ baseURL: `${service.url}/openai/v1`, apiKey: 'x402-pays-instead', fetch: wrapFetchWithPayment(fetch, client), maxRetries: 0 });
}

const price = (id: string, surface: 'http' | 'mcp' = 'http') => usdToAtomic(service.percall.catalogue.products.find((p) => p.id === id)![surface]!.price);

describe('the OpenAI-compatible door', () => {
  it('lists the model catalogue free, in the OpenAI list shape', async () => {
    const models = await openai().models.list();
    expect(models.data.map((m) => m.id)).toContain(MODEL);
    expect(models.data[0]).toMatchObject({ object: 'model', owned_by: 'OpenAI' });
  });

  it('quotes chat-completion: upto 1.00 on EVM before exact 0.01', async () => {
    const required = await quote(`${service.url}/openai/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: MODEL, messages }) });
    expect(required.accepts.filter((a) => a.network === chain.network).map((a) => [a.scheme, a.amount]).slice(0, 2)).toEqual([
      ['upto', '1000000'],
      ['exact', '10000'],
    ]);
    expect(required.resource.url).toContain('/openai/v1/chat/completions');
  });

  it('chat.completions.create, not streaming: the completion, charged exactly the price', async () => {
    const before = await balances(chain);
    const completion = await openai().chat.completions.create({ model: MODEL, messages });
    expect(completion.choices[0]!.message.content).toBe('Pay first.');
    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(price('chat-completion'));
    expect(after.payTo - before.payTo).toBe(price('chat-completion'));
    expect(upstream.requests.at(-1)!.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('chat.completions.create, streaming: the chunks in order, charged exactly the price', async () => {
    const before = await balances(chain);
    const stream = await openai().chat.completions.create({ model: MODEL, messages, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Pay first.');
    expect(before.buyer - (await balances(chain)).buyer).toBe(price('chat-completion'));
  });

  it('with upto, authorizing 1.00, is charged 0.01', async () => {
    const before = await balances(chain);
    const { data, response } = await openai('upto').chat.completions.create({ model: MODEL, messages }).withResponse();
    expect(data.choices[0]!.message.content).toBe('Pay first.');
    expect(decodePaymentResponseHeader(response.headers.get('payment-response')!).amount).toBe('10000');
    expect(before.buyer - (await balances(chain)).buyer).toBe(10_000n);
  });

  it('answers bad input in the OpenAI error shape, naming the field, before payment', async () => {
    const error = await openai().chat.completions.create({ model: 'no/such-model', messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    // Input that would be rejected is named in the 402's error; the paid retry is refused with 400.
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'invalid_request_error', param: 'model' });
    const tooMany = Array.from({ length: 257 }, () => messages[0]!);
    const response = await fetch(`${service.url}/openai/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: MODEL, messages: tooMany }) });
    expect(response.status).toBe(402);
    expect(JSON.parse(await response.text()).error).toMatch(/^invalid_input: messages:/);
  });

  for (const [fault, status] of [['hang', 504], [500, 502], ['malformed-chunk', 502]] as const) {
    it(`an upstream ${fault === 'hang' ? 'timeout' : fault === 500 ? '500' : 'malformed SSE chunk mid-stream'}: a clear ${status}, nothing settled, no upstream text`, async () => {
      if (fault === 500) upstream.failWith = 500;
      else upstream.fault = fault;
      try {
        const before = await balances(chain);
        const error = await openai()
          .chat.completions.create({ model: MODEL, messages, stream: fault === 'malformed-chunk' })
          .then(async (result) => {
            if (Symbol.asyncIterator in Object(result)) for await (const _ of result as AsyncIterable<unknown>);
            return result;
          })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OpenAI.APIError);
        const apiError = error as InstanceType<typeof OpenAI.APIError>;
        expect(apiError.status).toBe(status);
        expect(apiError.error).toMatchObject({ type: 'api_error', code: 'upstream-failed' });
        expect(apiError.message).toMatch(status === 504 ? /did not answer in time/ : /inference upstream/);
        expect(JSON.stringify(apiError.error)).not.toContain('sk-secret');
        expect(await balances(chain)).toEqual(before);
      } finally {
        upstream.failWith = undefined;
        upstream.fault = undefined;
      }
    });
  }

  it('upstream secrets never reach the logs', () => {
    expect(logs.lines.join('\n')).not.toContain('sk-secret');
    expect(logs.lines.join('\n')).not.toContain(API_KEY);
  });
});

/** What the double's model answers to each text product's prompt. */
function textReplies(body: Record<string, unknown>): string {
  const system = String((body.messages as { content: string }[])[0]!.content);
  if (system.startsWith('You classify')) return '{"scores": {"bug report": 0.9, "feature request": 0.05, "praise": 0.05}}';
  if (system.startsWith('You extract')) return '{"invoice": "1042", "vendor": "Acme Ltd", "total": 12.5}';
  if (system.startsWith('You rewrite')) return 'Hello, the API appears to be unavailable again. Could you please look into it?';
  if (system.startsWith('You summarize')) return '{"points": ["x402 lets clients pay per request."]}';
  if (system.startsWith('You judge')) return '{"score": 0.4, "reasons": ["Mostly praise."]}';
  return 'Pay first.';
}

const TEXT_CALLS: readonly { id: string; tool: string; path: string; input: Record<string, unknown> }[] = [
  { id: 'sentiment', tool: 'sentiment', path: 'sentiment', input: { query: 'The settlement was fast and the docs are great. The dashboard is slow.', query_type: 'text' } },
  { id: 'classify-text', tool: 'classify_text', path: 'classify', input: { text: 'The payment settled but the API returned 500.', labels: ['bug report', 'feature request', 'praise'] } },
  { id: 'extract-json', tool: 'extract_json', path: 'extract-json', input: { text: 'Invoice 1042 from Acme Ltd, total 12.50 USD.', schema: { type: 'object', required: ['invoice'] } } },
  { id: 'extract-keywords', tool: 'extract_keywords', path: 'keyword-extract', input: { text: 'x402 lets HTTP APIs charge per call in USDC on Base and Solana.' } },
  { id: 'rewrite-text', tool: 'rewrite_text', path: 'rewrite', input: { text: 'hey, the api is down again, pls fix', instruction: 'polite' } },
  { id: 'summarize-text', tool: 'summarize_text', path: 'summarize', input: { text: 'x402 lets clients pay per request. A facilitator settles the payment. Agents need no account.', format: 'one_liner' } },
];

describe('the text products, paid once over HTTP and once over MCP', () => {
  beforeAll(() => void (upstream.reply = textReplies));
  afterAll(() => void (upstream.reply = undefined));

  it('over HTTP with @x402/fetch, each charged exactly its price', async () => {
    for (const call of TEXT_CALLS) {
      const before = await balances(chain);
      const response = await paidPostJson(chain, `${service.url}/api/v1/paid/${call.path}`, call.input);
      const body = (await response.json()) as { method?: string };
      expect(response.status, `${call.id}: ${JSON.stringify(body)}`).toBe(200);
      expect(body.method, call.id).toBeDefined();
      expect(before.buyer - (await balances(chain)).buyer, call.id).toBe(price(call.id));
    }
  });

  it('over MCP with the official client (tools listed first), each charged exactly its tool price', async () => {
    const client = new Client({ name: 'openai-door-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    const { tools } = await client.listTools();
    for (const call of TEXT_CALLS) expect(tools.find((t) => t.name === call.tool), call.tool).toBeDefined();
    type ToolResult = { isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };
    for (const call of TEXT_CALLS) {
      const unpaid = (await client.callTool({ name: call.tool, arguments: call.input })) as ToolResult;
      const payment = await signPayment(chain.buyer.privateKey, unpaid.structuredContent as PaymentRequired);
      const before = await balances(chain);
      const result = (await client.callTool({ name: call.tool, arguments: call.input, _meta: { 'x402/payment': payment } })) as ToolResult;
      expect(result.isError, `${call.tool}: ${JSON.stringify(result.structuredContent)}`).toBeFalsy();
      expect(result._meta?.['x402/payment-response'] as SettleResponse).toMatchObject({ success: true });
      expect(before.buyer - (await balances(chain)).buyer, call.tool).toBe(price(call.id, 'mcp'));
    }
    await client.close();
  });

  it('refusals are never charged: another language (422 unsupported_language), a topic (422 topic_search_not_configured)', async () => {
    const german = { text: 'Der Dienst ist wirklich sehr gut und schnell, und die Dokumentation ist ausgezeichnet.' };
    const unpaid = await fetch(`${service.url}/api/v1/paid/keyword-extract`, { method: 'POST', body: JSON.stringify(german) });
    expect(unpaid.status).toBe(402);
    expect(JSON.parse(await unpaid.text()).error).toMatch(/^unsupported_language: text: the text looks like German/);
    for (const [path, input, code] of [['keyword-extract', german, 'unsupported_language'], ['sentiment', { query: 'ETH' }, 'topic_search_not_configured']] as const) {
      const before = await balances(chain);
      const response = await paidPostJson(chain, `${service.url}/api/v1/paid/${path}`, input);
      expect(response.status, path).toBe(422);
      expect(await response.json()).toMatchObject({ code });
      expect(await balances(chain)).toEqual(before);
    }
  });

  it('an extract_json schema the model never meets: 502 after one retry, not charged', async () => {
    const before = await balances(chain);
    const response = await paidPostJson(chain, `${service.url}/api/v1/paid/extract-json`, { text: 'Invoice 1042.', schema: { type: 'object', properties: { answer: { const: 'never' } }, required: ['answer'] } });
    expect(response.status).toBe(502);
    expect(await balances(chain)).toEqual(before);
  });
});
