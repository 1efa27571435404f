import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { DOUBLE_KEYS, providerDouble } from '../../../providers/provider-double.fixture.ts';
import { cryptoPrice } from './index.ts';

const double = providerDouble();
const run = (symbol: string, env: Record<string, string> = {}) => cryptoPrice.run(cryptoPrice.input.parse({ symbol }), fakeContext({ data: double.providers(env) }));

describe('crypto-price', () => {
  it('answers its published example: the symbol read as the largest coin sharing it', async () => {
    expect(await run('ETH')).toEqual(cryptoPrice.outputExample);
    const [search, price] = double.requests.slice(-2);
    expect(search).toMatchObject({ provider: 'coingecko', path: '/api/v3/search', query: { query: 'ETH' } });
    expect(price).toMatchObject({ path: '/api/v3/simple/price', query: { ids: 'ethereum', vs_currencies: 'usd', include_24hr_change: 'true', include_last_updated_at: 'true' } });
    // Keyless public tier: no key header at all.
    expect(Object.keys(price!.headers).filter((h) => h.startsWith('x-cg-'))).toEqual([]);
  });

  it('sends a Pro key as x-cg-pro-api-key', async () => {
    await run('$eth', { COINGECKO_API_KEY: DOUBLE_KEYS.coingeckoPro });
    expect(double.requests.at(-1)!.headers['x-cg-pro-api-key']).toBe(DOUBLE_KEYS.coingeckoPro);
  });

  it('an unknown symbol is 422 naming the field; a stale price (no 24h change) is not sold', async () => {
    await expect(run('NOPE')).rejects.toMatchObject({ name: 'ProductInputError', status: 422, field: 'symbol' });
    await expect(run('STALE')).rejects.toMatchObject({ name: 'UpstreamError', status: 502 });
    expect(cryptoPrice.input.safeParse({ symbol: 'ETH; DROP' }).success).toBe(false);
    expect(cryptoPrice.input.safeParse({ symbol: 'X'.repeat(21) }).success).toBe(false);
  });

  it('CoinGecko rate-limiting us is a 503, never charged', async () => {
    double.failWith.coingecko = 429;
    try {
      await expect(run('BTC')).rejects.toMatchObject({ name: 'UpstreamError', status: 503 });
    } finally {
      delete double.failWith.coingecko;
    }
  });
});
