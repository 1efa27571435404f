import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { EQUITY_FLIGHT_KEYS, equityFlightDouble } from '../../../providers/equity-flight-double.fixture.ts';
import { awardFlightSearch } from './index.ts';

const double = equityFlightDouble();
const run = (input: Record<string, unknown>) => awardFlightSearch.run(awardFlightSearch.input.parse(input), fakeContext({ data: double.providers() }));

describe('award-flight-search', () => {
  it('answers its published example: one cabin, cheapest first, taxes from minor units, the key only in the header', async () => {
    const answer = await run(awardFlightSearch.inputExample!);
    expect(answer).toEqual(awardFlightSearch.outputExample);
    expect(double.requests.at(-1)).toMatchObject({
      provider: 'seatsaero',
      path: '/partnerapi/search',
      query: { origin_airport: 'JFK', destination_airport: 'LHR', start_date: '2027-09-15', end_date: '2027-09-15', cabin: 'business' },
      headers: { 'partner-authorization': EQUITY_FLIGHT_KEYS.seatsaero },
    });
    expect(JSON.stringify(answer)).not.toContain(EQUITY_FLIGHT_KEYS.seatsaero);
  });

  it('every cabin when none is asked: unpublished seat counts are null, other days left out', async () => {
    const answer = await run({ origin: 'JFK', destination: 'LHR', date: '2027-09-15' });
    expect(double.requests.at(-1)!.query.cabin).toBeUndefined();
    expect(answer.options.map((o) => `${o.cabin} ${o.programme} ${o.miles}`)).toEqual([
      'economy virginatlantic 20000',
      'economy united 30000',
      'economy aeroplan 35000',
      'premium_economy virginatlantic 27500',
      'business virginatlantic 47500',
      'business aeroplan 60000',
    ]);
    expect(answer.options.find((o) => o.programme === 'united')).toMatchObject({ taxes: { amount: 5.6, currency: 'USD', amount_minor: 560 }, remaining_seats: 4, airlines: ['EI'], nonstop_available: false });
    expect(answer.options.find((o) => o.programme === 'aeroplan')).toMatchObject({ remaining_seats: null, taxes: { amount: 109.5, currency: 'CAD' } });
  });

  it('a route without award space is an empty list (charged: the search ran)', async () => {
    expect(await run({ origin: 'SFO', destination: 'NRT', date: '2027-09-15', cabin: 'first' })).toMatchObject({ options: [], has_more: false });
  });

  it('a past date or a route to itself is refused before payment, naming the field', async () => {
    const ctx = { now: new Date('2025-06-01T12:00:00Z') };
    await expect(awardFlightSearch.precheck!({ origin: 'JFK', destination: 'LHR', date: '2025-05-31' }, ctx)).rejects.toMatchObject({ status: 422, field: 'date' });
    await expect(awardFlightSearch.precheck!({ origin: 'JFK', destination: 'JFK', date: '2027-09-15' }, ctx)).rejects.toMatchObject({ status: 422, field: 'destination' });
    await expect(awardFlightSearch.precheck!({ origin: 'JFK', destination: 'LHR', date: '2025-06-01' }, ctx)).resolves.toBeUndefined();
    expect(awardFlightSearch.input.safeParse({ origin: 'jfk', destination: 'LHR', date: '2027-09-15' }).success).toBe(false);
    expect(awardFlightSearch.input.safeParse({ origin: 'JFK', destination: 'LHR', date: '2027-09-15', cabin: 'coach' }).success).toBe(false);
  });

  it('a refused key or an outage is 502, rate limiting 503, the provider text never passed on', async () => {
    for (const [failure, status] of [[401, 502], [500, 502], [429, 503]] as const) {
      double.failWith.seatsaero = failure;
      try {
        const error = await run({ origin: 'JFK', destination: 'LHR', date: '2027-09-16' }).catch((e: Error) => e);
        expect(error).toMatchObject({ name: 'UpstreamError', status });
        expect((error as Error).message).not.toContain('secret-provider-text');
      } finally {
        delete double.failWith.seatsaero;
      }
    }
  });
});
