import { describe, expect, it } from 'vitest';
import { ProviderClient, type ProviderSettings } from './api/client.ts';
import { equityFlightDouble } from './equity-flight-double.fixture.ts';
import { SeatsAeroAwards } from './flights/seats-aero.ts';
import { AlphaVantageEquities } from './equities/alpha-vantage.ts';

const settings: ProviderSettings = { baseUrl: 'http://provider.invalid/query', headers: {}, query: { apikey: 'k-secret' }, timeoutMs: 1_000, budgetPerMinute: 100, cacheTtlMs: 60_000 };
const answering = (body: unknown) => new ProviderClient('p', 'P', settings, Date.now, async () => Response.json(body));

describe('Alpha Vantage and Seats.aero adapters', () => {
  it('Alpha Vantage: quotes cached a minute, company overviews six hours', async () => {
    let now = 0;
    const double = equityFlightDouble();
    const equities = double.providers({}, () => now).equities!;
    const functions = () => double.requests.map((r) => r.query.function);
    await equities.quote('IBM');
    await equities.overview('IBM');
    now += 61_000;
    await equities.quote('IBM');
    await equities.overview('IBM');
    expect(functions()).toEqual(['GLOBAL_QUOTE', 'OVERVIEW', 'GLOBAL_QUOTE']);
    now += 6 * 3_600_000;
    await equities.overview('IBM');
    expect(functions().at(-1)).toBe('OVERVIEW');
  });

  it('Alpha Vantage: a quote with a figure missing is the provider\'s failure (502); cited URLs never carry the key', async () => {
    const quote = { '01. symbol': 'IBM', '05. price': '259.0600', '07. latest trading day': '2025-05-30' };
    await expect(new AlphaVantageEquities(answering({ 'Global Quote': quote })).quote('IBM')).rejects.toMatchObject({ name: 'UpstreamError', status: 502 });
    await expect(new AlphaVantageEquities(answering({ unexpected: true })).quote('IBM')).rejects.toMatchObject({ status: 502 });
    expect((await new AlphaVantageEquities(answering({})).overview('IBM')).source_url).toBe('http://provider.invalid/query?function=OVERVIEW&symbol=IBM');
  });

  it('Seats.aero: says when more records exist than the page read; an answer without a data list is 502', async () => {
    const double = equityFlightDouble();
    const page = { data: double.seatsAeroRecords.slice(0, 1), count: 1, hasMore: true, cursor: 1748731203 };
    const found = await new SeatsAeroAwards(answering(page)).search({ origin: 'JFK', destination: 'LHR', date: '2027-09-15' });
    expect(found).toMatchObject({ has_more: true, options: [{ programme: 'aeroplan', cabin: 'economy' }, { programme: 'aeroplan', cabin: 'business' }] });
    await expect(new SeatsAeroAwards(answering({ error: true })).search({ origin: 'JFK', destination: 'LHR', date: '2027-09-15' })).rejects.toMatchObject({ status: 502 });
  });
});
