import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVM_CHAINS } from '../products/kit/fields.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { rpcFailure, rpcRead } from '../products/kit/chains.ts';
import { EVM_CHAIN_NAMES, RequestBudget, createChainProviders, parseEvmRpcUrls } from './chains.ts';

/** A JSON-RPC endpoint on 127.0.0.1: `answer` gives eth_blockNumber's result, or undefined for a 500; `hang` never answers. */
async function endpoint(behaviour: { answer?: string; hang?: boolean }): Promise<{ url: string; hits: number; server: Server }> {
  const state = { url: '', hits: 0, server: undefined as unknown as Server };
  state.server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      state.hits++;
      if (behaviour.hang) return;
      if (behaviour.answer === undefined) return void res.writeHead(500).end('down');
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: behaviour.answer }));
    });
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}/v2/SECRET-KEY`;
  return state;
}

describe('chain providers', () => {
  const servers: Server[] = [];
  let down: Awaited<ReturnType<typeof endpoint>>;
  let one: Awaited<ReturnType<typeof endpoint>>;
  let two: Awaited<ReturnType<typeof endpoint>>;
  let hang: Awaited<ReturnType<typeof endpoint>>;
  beforeAll(async () => {
    [down, one, two, hang] = await Promise.all([endpoint({}), endpoint({ answer: '0x1' }), endpoint({ answer: '0x2' }), endpoint({ hang: true })]);
    servers.push(down.server, one.server, two.server, hang.server);
  });
  afterAll(() => {
    for (const s of servers) s.closeAllConnections(), s.close();
  });

  it('names the chains of the kit’s chain field', () => {
    expect([...EVM_CHAIN_NAMES]).toEqual([...EVM_CHAINS]);
  });

  it('falls back to the next endpoint when one fails', async () => {
    const chains = createChainProviders({ evm: [{ chain: 'base', urls: [down.url, one.url] }], budgetPerSecond: 100, timeoutMs: 2_000 });
    expect(chains.evmChains).toEqual(['base']);
    expect(chains.evm('ethereum')).toBeUndefined();
    expect(chains.evm('base')).toMatchObject({ network: 'eip155:8453', usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' });
    expect(await chains.evm('base')!.client.getBlockNumber()).toBe(1n);
    expect(down.hits).toBeGreaterThan(0);
  });

  it('keeps each endpoint within its budget: the next takes over, then 503 until the budget refills', async () => {
    const chains = createChainProviders({ evm: [{ chain: 'optimism', urls: [one.url, two.url] }], budgetPerSecond: 1, timeoutMs: 2_000 });
    const optimism = chains.evm('optimism')!;
    const read = () => rpcRead('optimism', 'eth_blockNumber', () => optimism.client.request({ method: 'eth_blockNumber' }));
    expect(await read()).toBe('0x1');
    expect(await read()).toBe('0x2');
    const spent = await read().catch((e: unknown) => e);
    expect(spent).toMatchObject({ name: 'UpstreamError', status: 503 });
  });

  it('bounds each request in time: a silent endpoint is a 504, and no error names the URL', async () => {
    const chains = createChainProviders({
      evm: [{ chain: 'base', urls: [hang.url] }],
      solana: { url: hang.url, network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', usdcMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
      budgetPerSecond: 100,
      timeoutMs: 150,
    });
    const started = Date.now();
    const evm = await rpcRead('base', 'eth_blockNumber', () => chains.evm('base')!.client.getBlockNumber()).catch((e: unknown) => e);
    expect(evm).toMatchObject({ status: 504 });
    const solana = await rpcRead('solana', 'getSlot', () => chains.solana!.rpc.getSlot().send()).catch((e: unknown) => e);
    expect(solana).toMatchObject({ status: 504 });
    expect(Date.now() - started).toBeLessThan(3_000);
    for (const error of [evm, solana]) expect(String((error as Error).message)).not.toMatch(/SECRET|127\.0\.0\.1/);
    // A raw failure naming the URL is reported without it.
    expect(rpcFailure('base', 'eth_call', new Error(`failed ${hang.url}`)).message).not.toContain('SECRET');
  });

  it('parses EVM_RPC_URLS: several endpoints per chain, errors that never quote a URL', () => {
    expect(parseEvmRpcUrls('base=https://a.example/k1|https://b.example, ethereum=https://c.example')).toEqual({ base: ['https://a.example/k1', 'https://b.example'], ethereum: ['https://c.example'] });
    expect(parseEvmRpcUrls(undefined)).toEqual({});
    expect(() => parseEvmRpcUrls('solana=https://x.example/KEY')).toThrow(/chain one of/);
    expect(() => parseEvmRpcUrls('base=ftp://x.example/KEY')).toThrow(/http\(s\) URL/);
    for (const bad of ['solana=https://x.example/KEY', 'base=ftp://x.example/KEY', 'base=']) {
      try {
        parseEvmRpcUrls(bad);
      } catch (error) {
        expect((error as Error).message).not.toContain('KEY');
      }
    }
  });

  it('EVM_RPC_URLS in the config: parsed, a bad entry refused without its URL, and redacted when a config is logged', () => {
    const config = loadConfig({ EVM_RPC_URLS: 'base=https://a.example/v2/KEY1|https://b.example/KEY2', EVM_RPC_URL: 'https://c.example/KEY3', RPC_TIMEOUT_MS: '1500' });
    expect(config.chains).toEqual({ evmRpcUrls: { base: ['https://a.example/v2/KEY1', 'https://b.example/KEY2'] }, budgetPerSecond: 25, timeoutMs: 1_500 });
    expect(() => loadConfig({ EVM_RPC_URLS: 'bsc=https://x.example/KEY4' })).toThrow(/EVM_RPC_URLS/);
    expect(() => loadConfig({ EVM_RPC_URLS: 'bsc=https://x.example/KEY4' })).not.toThrow(/KEY4/);
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    log.info({ chains: config.chains, evmRpcUrl: config.evmRpcUrl }, 'config');
    log.info({ config: { chains: config.chains } }, 'nested');
    expect(lines.join('\n')).not.toMatch(/KEY1|KEY2|KEY3/);
  });

  it('a request budget refills at its rate, bursting up to one second of it', () => {
    let now = 0;
    const budget = new RequestBudget(2, () => now);
    expect([budget.take(), budget.take(), budget.take()]).toEqual([true, true, false]);
    now += 500;
    expect([budget.take(), budget.take()]).toEqual([true, false]);
    now += 10_000;
    expect([budget.take(), budget.take(), budget.take()]).toEqual([true, true, false]);
  });
});
