import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { EQUITY_FLIGHT_KEYS, equityFlightDouble } from '../../../providers/equity-flight-double.fixture.ts';
import { usEquitySnapshot } from './index.ts';

const double = equityFlightDouble();
const run = (symbol: string, env: Record<string, string> = {}) => usEquitySnapshot.run(usEquitySnapshot.input.parse({ symbol }), fakeContext({ data: double.providers(env) }));

describe('us-equity-snapshot', () => {
  it('answers its published example: the quote and the company overview, the key never in the cited URLs', async () => {
    const answer = await run('ibm');
    expect(answer).toEqual(usEquitySnapshot.outputExample);
    const [quote, overview] = double.requests.slice(-2);
    expect(quote).toMatchObject({ provider: 'alphavantage', path: '/query', query: { function: 'GLOBAL_QUOTE', symbol: 'IBM', apikey: EQUITY_FLIGHT_KEYS.alphavantage } });
    expect(overview).toMatchObject({ query: { function: 'OVERVIEW', symbol: 'IBM', apikey: EQUITY_FLIGHT_KEYS.alphavantage } });
    expect(JSON.stringify(answer)).not.toContain(EQUITY_FLIGHT_KEYS.alphavantage);
  });

  it('a fund without a company overview: the quote, with name, exchange and market cap null', async () => {
    expect(await run('SPY')).toMatchObject({ symbol: 'SPY', price: 589.39, change_pct: -0.0797, volume: 61820934, name: null, exchange: null, currency: null, market_cap: null });
  });

  it('an unknown symbol (empty quote or an error message) is 404 naming the field; a malformed one is refused by the schema', async () => {
    for (const symbol of ['NOPE', 'ZZZZ']) await expect(run(symbol)).rejects.toMatchObject({ name: 'ProductInputError', status: 404, field: 'symbol' });
    expect(usEquitySnapshot.input.safeParse({ symbol: 'IBM; DROP' }).success).toBe(false);
    expect(usEquitySnapshot.input.safeParse({ symbol: 'A'.repeat(11) }).success).toBe(false);
  });

  it('rate limits in a 200 answer are 503, a refused key or an outage 502; never cached, provider text never passed on', async () => {
    for (const [failure, status] of [['note', 503], ['information', 503], ['bad-key', 502], [500, 502]] as const) {
      double.failWith.alphavantage = failure;
      try {
        const error = await run('IBM', { ALPHAVANTAGE_CACHE_SECONDS: '600' }).catch((e: Error) => e);
        expect(error, String(failure)).toMatchObject({ name: 'UpstreamError', status });
        expect((error as Error).message).not.toMatch(/secret-provider-text|AV-TEST/);
      } finally {
        delete double.failWith.alphavantage;
      }
    }
  });

  it('a rate-limit note is not cached: the next call reaches Alpha Vantage again', async () => {
    const providers = double.providers();
    const ctx = fakeContext({ data: providers });
    double.failWith.alphavantage = 'note';
    await expect(usEquitySnapshot.run({ symbol: 'IBM' }, ctx)).rejects.toMatchObject({ status: 503 });
    delete double.failWith.alphavantage;
    expect(await usEquitySnapshot.run({ symbol: 'IBM' }, ctx)).toMatchObject({ price: 259.06 });
    expect(providers.stats().find((s) => s.provider === 'alphavantage')).toMatchObject({ failures: { rate_limited: 1 } });
  });
});
