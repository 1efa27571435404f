/**
 * trading-signals and market-intel end to end: anvil as `base`, indexed by the service, with a
 * Uniswap v2-style USDC/TKN pair, swaps both ways and whale-sized USDC moves; CoinGecko and web
 * search are the local provider double, whose contract lookup answers `usd-coin` for the dev
 * chain's USDC. Each product is paid once with @x402/fetch over HTTP and once over MCP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createTestClient, createWalletClient, getAddress, http, type Address, type Hex, type PublicClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import { TestToken, TestUniswapV2Pair } from '../src/devchain/artifacts/index.ts';
import { DEV_ROLES, devChain, mintUsdc, usdcAbi } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { providerDouble, SEARCH_PAGES } from '../src/providers/provider-double.fixture.ts';
import type { RunningService } from '../src/runtime.ts';
import { indexCaughtUp, swapOnPair } from './helpers/dev-index.ts';
import { paidCalls } from './helpers/paid-calls.ts';
import { serveApp } from './helpers/local-site.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

const MNEMONIC = 'test test test test test test test test test test test junk';
const [w5, w6, w7] = [5, 6, 7].map((i) => mnemonicToAccount(MNEMONIC, { addressIndex: i })) as [ReturnType<typeof mnemonicToAccount>, ReturnType<typeof mnemonicToAccount>, ReturnType<typeof mnemonicToAccount>];
const USDC = (n: number) => BigInt(n) * 1_000_000n;
const TKN = (n: number) => BigInt(n) * 10n ** 18n;

const double = providerDouble();
let providerServer: Awaited<ReturnType<typeof serveApp>>;
let chain: DevChain;
let service: RunningService;
let pub: PublicClient;
let pair: Address;

/** USDC and TKN into a pair (200,000 USDC: a whale deposit), then a buy of TKN and a whale-sized sell of TKN for USDC. */
async function generateActivity(): Promise<void> {
  const viemChain = devChain(chain.rpcUrl, chain.chainId);
  const wallet = (account: typeof w5) => createWalletClient({ account, chain: viemChain, transport: http(chain.rpcUrl) });
  const done = (hash: Hex) => pub.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  const deployer = wallet(mnemonicToAccount(MNEMONIC, { addressIndex: 0 }));
  const test = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
  for (const w of [w5, w6, w7]) await test.setBalance({ address: w.address, value: 10n ** 20n });
  await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, w5.address, USDC(250_000));
  await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, w6.address, USDC(10_000));
  const token = getAddress((await done(await deployer.deployContract({ abi: TestToken.abi, bytecode: TestToken.bytecode, args: ['Test Token', 'TKN'] }))).contractAddress!);
  await done(await deployer.writeContract({ address: token, abi: TestToken.abi, functionName: 'mint', args: [w5.address, TKN(100_000)] }));
  await done(await deployer.writeContract({ address: token, abi: TestToken.abi, functionName: 'mint', args: [w7.address, TKN(120_000)] }));
  pair = getAddress((await done(await deployer.deployContract({ abi: TestUniswapV2Pair.abi, bytecode: TestUniswapV2Pair.bytecode, args: [chain.usdc, token] }))).contractAddress!);
  await done(await wallet(w5).writeContract({ address: chain.usdc, abi: usdcAbi, functionName: 'transfer', args: [pair, USDC(200_000)] }));
  await done(await wallet(w5).writeContract({ address: token, abi: TestToken.abi, functionName: 'transfer', args: [pair, TKN(100_000)] }));
  await done(await wallet(w5).writeContract({ address: pair, abi: TestUniswapV2Pair.abi, functionName: 'sync' }));
  await swapOnPair(pub, wallet(w6), pair, chain.usdc, USDC(5_000), w6.address);
  await swapOnPair(pub, wallet(w7), pair, token, TKN(120_000), w7.address);
}

beforeAll(async () => {
  providerServer = await serveApp(double.app);
  const providersUrl = providerServer.url;
  chain = await startTestChain();
  double.listContract('base', chain.usdc, 'usd-coin');
  pub = createPublicClient({ transport: http(chain.rpcUrl), cacheTime: 0 }) as PublicClient;
  service = await startTestService({ chain, env: { ...double.env(providersUrl), INDEX_CHAINS: 'base', INDEX_POLL_MS: '50' } });
  await generateActivity();
  await indexCaughtUp(service, pub);
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
  await providerServer?.close();
});

const { paid, paidTool } = paidCalls(() => ({ service, chain }), { client: 'market-products-test', tools: ['trading_signals', 'market_intel'] });

describe('market products on the dev chain, its index and the CoinGecko double', () => {
  it('trading-signals over HTTP and MCP: the dev USDC read as usd-coin, its swaps and whale moves from the index', async () => {
    const http = await paid('trading-signals', { token: chain.usdc, chain: 'base' });
    const tool = await paidTool('trading_signals', { token: chain.usdc }, 'trading-signals');
    for (const out of [http, tool]) {
      expect(out).toMatchObject({ chain: 'base', network: chain.network, token: { address: getAddress(chain.usdc), decimals: 6, coin: { coingecko_id: 'usd-coin' } }, momentum: { price_usd: 0.999812 } });
      // One buy of TKN with 5,000 USDC (USDC into the pair) and one sell of TKN that took USDC out.
      expect(out.dex_volume).toMatchObject({ swaps: 2, buys: 1, sells: 1, sold_atomic: USDC(5_000).toString(), pools: 1, unresolved_pools: 0 });
      // Whales ($100,000 or more): the 200,000 USDC deposit into the pair, the USDC the big sell took out, the mint.
      expect(out.whale_activity).toMatchObject({ threshold: { basis: 'usd', usd: 100_000 }, to_venues: { count: 1, amount_atomic: USDC(200_000).toString() }, from_venues: { count: 1 } });
      expect(out.whale_activity.largest.find((w: { direction: string }) => w.direction === 'to_venue')).toMatchObject({ to: pair, amount_atomic: USDC(200_000).toString() });
      expect(out.whale_activity.other).toEqual({ count: 1, amount_atomic: USDC(250_000).toString() }); // the mint to w5
      expect(out.dex_volume.bought_atomic).toBe(out.whale_activity.from_venues.amount_atomic);
      expect(out.components.map((c: { vote: number }) => c.vote)).toEqual([0, 0, 1, -1]);
      expect(out).toMatchObject({ signal: 'neutral', score: 0 });
    }
    // A symbol CoinGecko does not know: 404 naming token, not charged.
    const pay = createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    const before = await balances(chain);
    const unknown = await pay(`${service.url}/api/v1/paid/trading-signals`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: 'NOPE' }) });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ errors: [{ field: 'token' }] });
    expect(await balances(chain)).toEqual(before);
    // A chain the index does not read is named in the unpaid quote already.
    const quote = await fetch(`${service.url}/api/v1/paid/trading-signals`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: 'AERO', chain: 'ethereum' }) });
    expect(quote.status).toBe(402);
    expect(JSON.stringify(await quote.json())).toMatch(/chain ethereum is not configured on this instance/);
  });

  it('market-intel over HTTP and MCP: CoinGecko market data, on-chain activity where indexed, news with citations', async () => {
    const http = await paid('market-intel', { project: chain.usdc, chain: 'base' });
    expect(http).toMatchObject({ project: { coingecko_id: 'usd-coin', symbol: 'USDC' }, market: { price_usd: 0.999812, source: 'CoinGecko' }, onchain: { status: 'ok', contract: getAddress(chain.usdc), network: chain.network } });
    expect(http.market.citation).toMatch(/\/coingecko\/api\/v3\/coins\/base\/contract\//);
    expect(http.onchain.windows[0].transfers).toBeGreaterThanOrEqual(8);
    expect(http.news.items.map((i: { citation: string }) => i.citation)).toEqual(SEARCH_PAGES.map((p) => p.url));
    const tool = await paidTool('market_intel', { project: 'Uniswap' }, 'market-intel');
    expect(tool).toMatchObject({ project: { coingecko_id: 'uniswap' }, chain: 'ethereum', onchain: { status: 'chain_not_indexed', windows: null }, news: { status: 'ok' } });
  });
});
