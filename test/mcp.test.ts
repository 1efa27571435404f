import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { Catalogue, withUpstreams } from '../src/catalogue/index.ts';
import { ALL_PRODUCTS } from '../src/catalogue/all.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import type { RunningService } from '../src/runtime.ts';
import { quote, signPayment } from './helpers/payments.ts';
import { balances, useTestService } from './helpers/service.ts';

let chain: DevChain;
let service: RunningService;
// The test services run without an inference upstream, so they sell what withUpstreams leaves.
const catalogue = new Catalogue(withUpstreams(ALL_PRODUCTS, new Set()));

useTestService((c, s) => ((chain = c), (service = s)));

/** The official MCP client over streamable HTTP, exactly as an agent would connect. */
async function connect(query = ''): Promise<Client> {
  const client = new Client({ name: 'percall-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp${query}`)));
  return client;
}

type ToolResult = Awaited<ReturnType<Client['callTool']>> & { structuredContent?: unknown; _meta?: Record<string, unknown>; isError?: boolean };

async function call(client: Client, name: string, args: Record<string, unknown>, payment?: unknown): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args, ...(payment ? { _meta: { 'x402/payment': payment } } : {}) })) as ToolResult;
}

describe('MCP server at /mcp with the official SDK client', () => {
  it('lists search_tools and exactly the available paid tools, with prices and schemas', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const paid = catalogue.available('mcp').map((p) => p.mcp!.tool);
    expect(tools.map((t) => t.name).sort()).toEqual(['search_tools', ...paid].sort());
    const serverTime = tools.find((t) => t.name === 'server_time')!;
    expect(serverTime.description).toContain('0.01 USD');
    expect(serverTime.inputSchema.type).toBe('object');
    expect(serverTime.annotations?.readOnlyHint).toBe(true);
    expect(client.getServerVersion()).toMatchObject({ version: '1.1.0' });
    await client.close();
  });

  it('an unpaid call returns the PaymentRequired result; paying with the official x402 client returns the result and the settlement', async () => {
    const client = await connect();
    const unpaid = await call(client, 'echo', { hello: 'mcp' });
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as PaymentRequired;
    expect(required.x402Version).toBe(2);
    expect(JSON.parse((unpaid.content as { text: string }[])[0]!.text)).toEqual(required);
    const toolPrice = catalogue.byToolName('echo')!.mcp!.price;
    expect(required.accepts[0]!.amount).toBe(usdToAtomic(toolPrice).toString());
    expect(required.resource.url).toBe('mcp://tool/echo');

    const before = await balances(chain);
    const payload = await signPayment(chain.buyer.privateKey, required);
    const paid = await call(client, 'echo', { hello: 'mcp' }, payload);
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ echo: 'hello=mcp' });
    const settlement = paid._meta?.['x402/payment-response'] as SettleResponse;
    expect(settlement).toMatchObject({ success: true, network: chain.network });
    expect(before.buyer - (await balances(chain)).buyer).toBe(usdToAtomic(toolPrice));
    expect((await service.percall.store.ledger())[0]).toMatchObject({ product: 'echo', surface: 'mcp', txHash: settlement.transaction });

    // The same payment again is served once only.
    const replay = await call(client, 'echo', { hello: 'mcp' }, payload);
    expect(replay.isError).toBe(true);
    expect((replay.structuredContent as PaymentRequired).error).toBe('payment_already_used');
    expect(before.buyer - (await balances(chain)).buyer).toBe(usdToAtomic(toolPrice));
    await client.close();
  });

  it('a payment quoted for the HTTP route is refused by the tool of the same price, and settles nothing', async () => {
    const client = await connect();
    const httpQuote = await quote(`${service.url}/api/v1/paid/echo`);
    const before = await balances(chain);
    const result = await call(client, 'echo', { hello: 'mcp' }, await signPayment(chain.buyer.privateKey, httpQuote));
    expect(result.isError).toBe(true);
    expect((result.structuredContent as PaymentRequired).error).toBe('payment_resource_mismatch');
    expect(await balances(chain)).toEqual(before);
    await client.close();
  });

  it('invalid arguments are a protocol error, with or without payment, and never charge', async () => {
    const client = await connect();
    const unpaid = await call(client, 'server_time', {});
    const payload = await signPayment(chain.buyer.privateKey, unpaid.structuredContent as PaymentRequired);
    const before = await balances(chain);
    await expect(call(client, 'echo', { n: 5 })).rejects.toThrow(/invalid arguments for echo: n/);
    await expect(call(client, 'echo', { n: 5 }, payload)).rejects.toThrow(/invalid arguments/);
    await expect(call(client, 'no_such_tool', {})).rejects.toThrow(/unknown tool/);
    expect(await balances(chain)).toEqual(before);
    // The payment was never consumed: it still buys server_time.
    const served = await call(client, 'server_time', {}, payload);
    expect(served.structuredContent).toMatchObject({ unix: expect.any(Number) });
    await client.close();
  });

  it('search_tools finds tools by need, free', async () => {
    const client = await connect();
    const result = await call(client, 'search_tools', { query: 'current time' });
    const found = result.structuredContent as { tools: { name: string; price_usd: string; input_schema: unknown }[] };
    expect(found.tools[0]).toMatchObject({ name: 'server_time', price_usd: '0.01' });
    expect(found.tools[0]!.input_schema).toMatchObject({ type: 'object' });
    await client.close();
  });

  it('llms.txt documents the MCP door: payment in _meta, search_tools, the category filter, free-tier proofs', async () => {
    const text = await (await fetch(`${service.url}/llms.txt`)).text();
    for (const needle of ['/mcp?categories=', 'search_tools', '_meta["x402/payment"]', 'sign-in-with-x', 'version 1.1.0']) expect(text).toContain(needle);
  });

  it('a category filter on the endpoint narrows the tool list', async () => {
    const utility = await connect('?categories=utility');
    expect((await utility.listTools()).tools.map((t) => t.name).sort()).toEqual(['echo', 'search_tools', 'server_time']);
    await utility.close();
    const bazaar = await connect('?categories=bazaar,chain');
    expect((await bazaar.listTools()).tools.map((t) => t.name)).toEqual(['search_tools']);
    await expect(call(bazaar, 'server_time', {})).rejects.toThrow(/unknown tool/);
    await bazaar.close();
  });
});
