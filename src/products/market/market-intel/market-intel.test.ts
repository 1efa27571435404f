import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_NOW, fakeContext } from '../../kit/fake-context.ts';
import { blockTime, blocks, memoryIndex, row } from '../../chain/index-fixture.ts';
import { providerDouble, SEARCH_PAGES } from '../../../providers/provider-double.fixture.ts';
import { marketIntel } from './index.ts';

// Ethereum blocks an hour apart over the last 10 days: the 7-day window is complete.
const LAST = 240;
const at = (n: number) => blockTime(n, LAST, FAKE_NOW, 3_600);
const UNI = '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984';
const E18 = 10n ** 18n;
const [A, B, C] = ['0xa1', '0xa2', '0xa3'].map((p) => p.padEnd(42, '0')) as [string, string, string];
const ZERO = `0x${'0'.repeat(40)}`;
const transfer = (block: number, from: string, to: string, value: bigint) =>
  row('erc20_transfers', { block_number: block, block_time: at(block), tx_hash: `0x${block.toString(16).padStart(64, '0')}`, log_index: 0, contract_address: UNI, from, to, value });

let index: Awaited<ReturnType<typeof memoryIndex>>;
const double = providerDouble();
beforeAll(async () => {
  index = await memoryIndex(
    {
      blocks: blocks(0, LAST, FAKE_NOW, 3_600),
      // 10 days ago: a mint (outside both windows); 3 days ago: A to B; in the last day: B to C and a burn by C.
      erc20_transfers: [transfer(0, ZERO, A, 1_000n * E18), transfer(LAST - 72, A, B, 300n * E18), transfer(LAST - 5, B, C, 100n * E18), transfer(LAST - 1, C, ZERO, 10n * E18)],
    },
    { chain: 'ethereum', network: 'eip155:1' },
  );
});
afterAll(() => index.close());

const NO_SEARCH = { SEARXNG_URL: 'off', BRAVE_SEARCH_API_KEY: '' };
const run = (input: Record<string, unknown>, options: { env?: Record<string, string>; index?: typeof index | null } = {}) =>
  marketIntel.run(marketIntel.input.parse(input), fakeContext({ data: double.providers(options.env), ...(options.index === null ? {} : { index: options.index ?? index }) }));

describe('market-intel', () => {
  it('Uniswap on ethereum: market data, on-chain activity and news, each with its citation', async () => {
    const out = await run({ project: 'Uniswap' });
    expect(marketIntel.output.parse(out)).toEqual(out);
    expect(out.project).toEqual({ query: 'Uniswap', coingecko_id: 'uniswap', symbol: 'UNI', name: 'Uniswap', market_cap_rank: 31 });
    expect(out.market).toMatchObject({ price_usd: 6.412, market_cap_usd: 3_851_230_448, volume_24h_usd: 171_442_908, change_7d_pct: -6.87, circulating_supply: 600_483_073.7, total_supply: 1_000_000_000, max_supply: 1_000_000_000, source: 'CoinGecko' });
    expect(out.market.citation).toMatch(/^http:\/\/providers\.invalid\/coingecko\/api\/v3\/coins\/uniswap\?localization=false&tickers=false&market_data=true/);
    expect(out.onchain).toMatchObject({ status: 'ok', contract: '0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984', network: 'eip155:1', indexed: { to_block: LAST } });
    expect(out.onchain.windows).toEqual([
      { hours: 24, transfers: 2, amount_atomic: (110n * E18).toString(), amount_usd: 705.32, senders: 2, receivers: 1, active_addresses: 2, complete: true },
      { hours: 168, transfers: 3, amount_atomic: (410n * E18).toString(), amount_usd: 2628.92, senders: 3, receivers: 2, active_addresses: 3, complete: true },
    ]);
    expect(out.news).toMatchObject({ status: 'ok', provider: 'Brave Search', query: 'Uniswap UNI crypto news' });
    expect(out.news.items.map((i) => i.citation)).toEqual(SEARCH_PAGES.map((p) => p.url));
  });

  it('sections without their source say so and hold nothing', async () => {
    const base = await run({ project: 'uni', chain: 'base' }, { env: NO_SEARCH });
    expect(base.onchain).toMatchObject({ status: 'chain_not_indexed', windows: null, contract: null, citation: null });
    expect(base.onchain.note).toMatch(/does not index base \(indexed: ethereum\)/);
    expect(base.news).toEqual({ status: 'not_configured', provider: null, query: null, items: [] });
    const aero = await run({ project: 'AERO' }, { env: NO_SEARCH });
    expect(aero.onchain).toMatchObject({ status: 'no_contract_on_chain', windows: null });
    const noIndex = await run({ project: 'uniswap' }, { env: NO_SEARCH, index: null });
    expect(noIndex.onchain.status).toBe('index_not_running');
  });

  it('a contract address reads the coin CoinGecko lists for it', async () => {
    const out = await run({ project: UNI.toUpperCase().replace('0X', '0x') }, { env: NO_SEARCH });
    expect(out.project.coingecko_id).toBe('uniswap');
    expect(out.onchain.windows?.[1]?.transfers).toBe(3);
  });

  it('an unknown project is 404 on project', async () => {
    await expect(run({ project: 'Nothing Like This' })).rejects.toMatchObject({ name: 'ProductInputError', status: 404, field: 'project' });
    await expect(run({ project: '0x2222222222222222222222222222222222222222' })).rejects.toMatchObject({ status: 404, field: 'project' });
    expect(marketIntel.input.safeParse({ project: '   ' }).success).toBe(false);
    expect(marketIntel.input.safeParse({ project: 'uni', chain: 'solana' }).success).toBe(false);
  });
});
