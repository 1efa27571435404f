import { afterAll, expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPayingFetch } from '../../src/client/paying-fetch.ts';
import type { DevChain } from '../../src/devchain/stack.ts';
import { usdToAtomic } from '../../src/money.ts';
import type { RunningService } from '../../src/runtime.ts';
import { payTool } from './mcp-payments.ts';
import { balances } from './service.ts';

/**
 * Pays a test file's service as agents do, each call's charge checked against the buyer's balance:
 * `paid` with @x402/fetch over HTTP, `paidTool` over MCP with one SDK client that listed `tools`
 * first (it then checks every structuredContent against the tool's output schema).
 */
export function paidCalls(target: () => { service: RunningService; chain: DevChain }, mcp: { client: string; tools: readonly string[] }) {
  const price = (id: string, surface: 'http' | 'mcp' = 'http') => usdToAtomic(target().service.percall.catalogue.products.find((p) => p.id === id)![surface]!.price);
  const url = (id: string, query?: Record<string, string>) => `${target().service.url}/api/v1/paid/${id}${query ? `?${new URLSearchParams(query)}` : ''}`;

  async function paid(id: string, input: Record<string, unknown>, method: 'GET' | 'POST' = 'POST'): Promise<Record<string, any>> {
    const { chain } = target();
    const pay = createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    const before = await balances(chain);
    const response =
      method === 'GET'
        ? await pay(url(id, Object.fromEntries(Object.entries(input).map(([k, v]) => [k, String(v)]))))
        : await pay(url(id), { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
    const body = (await response.json()) as Record<string, any>;
    expect(response.status, `${id}: ${JSON.stringify(body)}`).toBe(200);
    expect(before.buyer - (await balances(chain)).buyer, id).toBe(price(id));
    return body;
  }

  let client: Client | undefined;
  async function paidTool(tool: string, args: Record<string, unknown>, id: string): Promise<Record<string, any>> {
    const { service, chain } = target();
    if (!client) {
      client = new Client({ name: mcp.client, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
      const { tools } = await client.listTools();
      for (const name of mcp.tools) expect(tools.find((t) => t.name === name)?.outputSchema, name).toBeDefined();
    }
    const result = await payTool(client, chain, tool, args, price(id, 'mcp'));
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    return result.structuredContent as Record<string, any>;
  }
  afterAll(async () => client?.close());

  return { price, url, paid, paidTool };
}
