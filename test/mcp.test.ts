import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { Catalogue, withUpstreams } from '../src/catalogue/index.ts';
import { ALL_PRODUCTS } from '../src/catalogue/all.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import type { RunningService } from '../src/runtime.ts';
import type { AvailableProduct } from '../src/catalogue/types.ts';
import type { ProofRequest } from '../src/identity/proof-request.ts';
import { toolDefinition } from '../src/mcp/tools.ts';
import { quote, signPayment, tamper } from './helpers/payments.ts';
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier';
import { jwtProof } from './helpers/proofs.ts';
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

function text(result: ToolResult): string {
  return (result.content as { type: string; text: string }[])[0]!.text;
}

/** The x402 MCP transport's tool-result binding: PaymentRequired in structuredContent and, as JSON, in content[0].text. */
function expectPaymentRequired(result: ToolResult, tool: string, error: string | RegExp = 'payment_required'): PaymentRequired {
  expect(result.isError, tool).toBe(true);
  const required = result.structuredContent as PaymentRequired;
  expect(required, tool).toMatchObject({ x402Version: 2, error, resource: { url: `mcp://tool/${tool}` } });
  expect(required.accepts.length, tool).toBeGreaterThan(0);
  expect(JSON.parse(text(result)), tool).toEqual(required);
  return required;
}

/** Valid arguments for a listed tool: its catalogue inputExample, checked against its input schema. */
function argsFor(tool: string): Record<string, unknown> {
  const product = service.percall.catalogue.byToolName(tool)!;
  const args = structuredClone(product.inputExample ?? {}) as Record<string, unknown>;
  expect(product.input.safeParse(args).success, `${tool}: inputExample must be valid arguments`).toBe(true);
  // The bazaar tools' examples name a listing of the public market, refused here before payment:
  // this dev service's market is its own catalogue.
  if (typeof args.resource_url === 'string') args.resource_url = `${service.url}/api/v1/paid/time`;
  return args;
}

/** A client that has listed the tools first, as every agent does: from then on it validates structuredContent. */
async function listedClient(): Promise<{ client: Client; paid: string[]; tools: Awaited<ReturnType<Client['listTools']>>['tools'] }> {
  const client = await connect();
  const { tools } = await client.listTools();
  return { client, tools, paid: tools.map((t) => t.name).filter((name) => name !== 'search_tools') };
}

describe('MCP server at /mcp with the official SDK client', () => {
  it('lists search_tools and exactly the available paid tools, with prices and schemas', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    // The service's own catalogue: what it sells depends on the machine (an isolated browser or not).
    const paid = service.percall.catalogue.available('mcp').map((p) => p.mcp!.tool);
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

  it('a payment-identifier makes a paid tool call idempotent: the same payment again returns the identical result and settlement, charged once', async () => {
    const client = await connect();
    await client.listTools();
    const required = (await call(client, 'echo', { idem: 'mcp' })).structuredContent as PaymentRequired;
    appendPaymentIdentifierToExtensions(required.extensions!, generatePaymentId('mcp_'));
    const payload = await signPayment(chain.buyer.privateKey, required);
    const before = await balances(chain);
    const first = await call(client, 'echo', { idem: 'mcp' }, payload);
    const again = await call(client, 'echo', { idem: 'mcp' }, payload);
    expect(first.isError).toBeFalsy();
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect((again._meta?.['x402/payment-response'] as SettleResponse).transaction).toBe((first._meta?.['x402/payment-response'] as SettleResponse).transaction);
    expect(before.buyer - (await balances(chain)).buyer).toBe(usdToAtomic(catalogue.byToolName('echo')!.mcp!.price));
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
    // run_python is on sale where a Python sandbox can start (bubblewrap and Debian's python3).
    expect((await utility.listTools()).tools.map((t) => t.name).sort()).toEqual(['echo', ...(service.percall.python ? ['run_python'] : []), 'search_tools', 'server_time']);
    await utility.close();
    const bazaar = await connect('?categories=bazaar,chain');
    const names = (await bazaar.listTools()).tools.map((t) => t.name);
    // Nothing of bazaar is on sale yet; chain tools are.
    expect(names).toEqual(expect.arrayContaining(['search_tools', 'base_block_number', 'proxy_implementation']));
    expect(names).not.toContain('server_time');
    await expect(call(bazaar, 'server_time', {})).rejects.toThrow(/unknown tool/);
    await bazaar.close();
  });
  it('output schemas stay object schemas that admit the product output and the PaymentRequired result', async () => {
    const { client, tools } = await listedClient();
    const validator = new AjvJsonSchemaValidator();
    const withSchema = tools.filter((t) => t.outputSchema);
    // Not vacuous: these tools declare an output schema, so the client validates their results.
    expect(withSchema.map((t) => t.name)).toEqual(expect.arrayContaining(['server_time', 'echo', 'web_extract', 'endpoint_task_evaluation']));
    for (const tool of withSchema) {
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object', anyOf: expect.any(Array) });
      const product = service.percall.catalogue.byToolName(tool.name)!;
      const check = validator.getValidator(tool.outputSchema as never);
      if (product.outputExample) expect(check(product.outputExample).errorMessage, tool.name).toBeUndefined();
      expect(check({ hello: 'not a result' }).valid, tool.name).toBe(false);
    }
    await client.close();
  });

  it('after tools/list, every paid tool answers an unpaid call and a garbage payment with a readable PaymentRequired', async () => {
    const { client, paid } = await listedClient();
    expect(paid.length).toBeGreaterThan(5);
    for (const tool of paid) {
      let args = argsFor(tool);
      if (service.percall.catalogue.byToolName(tool)!.requiresProof) {
        // A proof-gated tool first asks for its proof: a PROOF-REQUEST, readable the same way.
        const gated = await call(client, tool, args);
        expect(gated.isError, tool).toBe(true);
        const request = gated.structuredContent as ProofRequest;
        expect(request, tool).toMatchObject({ type: 'PROOF-REQUEST', nonce: expect.any(String) });
        expect(JSON.parse(text(gated)), tool).toEqual(request);
        args = { ...args, proof: await jwtProof(request) };
      }
      expectPaymentRequired(await call(client, tool, args), tool);
      expectPaymentRequired(await call(client, tool, args, { x402Version: 2, payload: 'garbage' }), tool, 'invalid_payment_payload');
    }
    await client.close();
  });

  it('after tools/list, a tampered payment is a readable PaymentRequired with the reason, and charges nothing', async () => {
    const { client } = await listedClient();
    const before = await balances(chain);
    for (const tool of ['echo', 'server_time']) {
      const args = argsFor(tool);
      const signed = await signPayment(chain.buyer.privateKey, expectPaymentRequired(await call(client, tool, args), tool));
      const badSignature = await tamper(chain.buyer.privateKey, signed, { signature: `0x${'11'.repeat(65)}` });
      const refused = expectPaymentRequired(await call(client, tool, args, badSignature), tool, expect.any(String));
      expect(refused.error, tool).not.toBe('payment_required');
    }
    expect(await balances(chain)).toEqual(before);
    await client.close();
  });

  it('after tools/list, paying echo and server_time with the official x402 client returns the structured output and the settlement', async () => {
    const { client } = await listedClient();
    for (const [tool, output] of [
      ['echo', { echo: expect.any(String), timestamp: expect.any(String) }],
      ['server_time', { unix: expect.any(Number), time: expect.any(String) }],
    ] as const) {
      const args = argsFor(tool);
      const before = await balances(chain);
      const payload = await signPayment(chain.buyer.privateKey, expectPaymentRequired(await call(client, tool, args), tool));
      const paidResult = await call(client, tool, args, payload);
      expect(paidResult.isError, tool).toBeFalsy();
      expect(paidResult.structuredContent, tool).toMatchObject(output);
      expect(JSON.parse(text(paidResult)), tool).toEqual(paidResult.structuredContent);
      expect(paidResult._meta?.['x402/payment-response'], tool).toMatchObject({ success: true, network: chain.network, transaction: expect.any(String) });
      const price = usdToAtomic(service.percall.catalogue.byToolName(tool)!.mcp!.price);
      expect(before.buyer - (await balances(chain)).buyer, tool).toBe(price);
      // The replay is refused with a readable PaymentRequired too.
      expectPaymentRequired(await call(client, tool, args, payload), tool, 'payment_already_used');
    }
    await client.close();
  });

  it('after tools/list, a plain-text tool error of a tool with an output schema is readable, and charges nothing', async () => {
    const { client, tools } = await listedClient();
    expect(tools.find((t) => t.name === 'web_extract')?.outputSchema).toBeDefined();
    const args = { url: 'http://[::]:9/latest/meta-data/' };
    const payload = await signPayment(chain.buyer.privateKey, expectPaymentRequired(await call(client, 'web_extract', args), 'web_extract'));
    const before = await balances(chain);
    const failed = await call(client, 'web_extract', args, payload);
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toBeUndefined();
    expect(text(failed)).toMatch(/non-public address.*Nothing was charged/);
    // The same problem document an HTTP caller gets: code, status and field, beside the text.
    expect(failed._meta?.['percall/problem']).toMatchObject({ type: 'urn:percall:problem:input-rejected', code: 'input-rejected', status: 422, errors: [{ field: 'url' }] });
    expect(await balances(chain)).toEqual(before);
    await client.close();
  });

  it('a tool error carries the problem the HTTP route answers: payments not ready is the same 503 on both doors', async () => {
    const rail = service.percall.rail;
    Object.defineProperty(rail, 'ready', { configurable: true, get: () => false });
    try {
      const http = await fetch(`${service.url}/api/v1/paid/echo?x=1`);
      expect(http.status).toBe(503);
      const problem = await http.json();
      const { client } = await listedClient();
      const result = await call(client, 'echo', { x: '1' });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(result._meta?.['percall/problem']).toEqual({ ...problem, retry_after: Number(http.headers.get('retry-after')) });
      expect(problem).toMatchObject({ code: 'payment-facilitator-unavailable', status: 503 });
      await client.close();
    } finally {
      delete (rail as { ready?: boolean }).ready;
    }
    expect(rail.ready).toBe(true);
  });

  it('a PROOF-REQUEST is admitted by the output schema of a proof-gated tool that declares one', async () => {
    const { client } = await listedClient();
    const gatedTool = service.percall.catalogue.available('mcp').find((p) => p.requiresProof)!;
    const gated = await call(client, gatedTool.mcp!.tool, argsFor(gatedTool.mcp!.tool));
    const request = gated.structuredContent as ProofRequest;
    expect(request.type).toBe('PROOF-REQUEST');
    // Give the proof-gated tool an output schema: the PROOF-REQUEST it sends must still validate.
    const withOutput = { ...gatedTool, outputSchema: { type: 'object', properties: { results: { type: 'array' } }, required: ['results'], additionalProperties: false } } as AvailableProduct;
    const check = new AjvJsonSchemaValidator().getValidator(toolDefinition(withOutput).outputSchema as never);
    expect(check(request).errorMessage).toBeUndefined();
    expect(check({ results: [] }).valid).toBe(true);
    // A tool without proof does not admit it.
    const plain = new AjvJsonSchemaValidator().getValidator(toolDefinition({ ...withOutput, requiresProof: false }).outputSchema as never);
    expect(plain(request).valid).toBe(false);
    await client.close();
  });

  it('protocol errors carry the MCP error prefix once', async () => {
    const { client } = await listedClient();
    await expect(call(client, 'no_such_tool', {})).rejects.toMatchObject({ code: -32602, message: 'MCP error -32602: unknown tool no_such_tool' });
    await expect(call(client, 'echo', { n: 5 })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/^MCP error -32602: invalid arguments for echo: n/) });
    // Its data is the problem document HTTP callers get for the same input.
    await expect(call(client, 'echo', { n: 5 })).rejects.toMatchObject({ data: { code: 'invalid-input', status: 400, errors: [{ field: 'n', message: expect.any(String) }] } });
    await expect(call(client, 'search_tools', { limit: 0 })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/^MCP error -32602: invalid arguments for search_tools: limit/) });
    await client.close();
  });
});
