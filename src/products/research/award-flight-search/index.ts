import { z } from 'zod';
import { ProductInputError, READ_EXTERNAL, dataProvider, product } from '../../kit/index.ts';
import { CABINS } from '../../../providers/flights/seats-aero.ts';

const option = z.object({
  id: z.string().describe("Seats.aero's availability record id, this option's citation (its flights: the Partner API's GET /trips/{id})"),
  programme: z.string().describe('The mileage programme that sells the award, as Seats.aero names it (e.g. "aeroplan", "united", "virginatlantic")'),
  cabin: z.enum(CABINS).describe('Cabin of the award'),
  miles: z.number().int().describe("Miles or points per passenger, one way: the programme's cheapest award in this cabin that day, of any routing"),
  taxes: z
    .object({
      amount: z.number().describe('Taxes and fees per passenger, in the currency (Seats.aero gives minor units; this is them divided by 100)'),
      currency: z.string().nullable().describe('Currency of the taxes (ISO 4217), as Seats.aero reports it'),
      amount_minor: z.number().int().describe('The taxes as Seats.aero gives them, in minor units (cents)'),
    })
    .nullable()
    .describe('Taxes and fees on top of the miles; null where the programme publishes none (unknown, not free)'),
  remaining_seats: z.number().int().nullable().describe('Award seats left at this price; null where the programme publishes no seat count'),
  airlines: z.array(z.string()).describe('Operating airlines (IATA codes) of the itineraries found'),
  nonstop_available: z.boolean().nullable().describe('Whether a non-stop itinerary exists in this cabin that day (Seats.aero\'s direct flag); the miles quoted may still be a connecting one'),
  updated_at: z.string().nullable().describe('When Seats.aero last refreshed this cached availability, ISO 8601'),
});

export const awardFlightSearchOutput = z.object({
  origin: z.string().describe('Origin airport (IATA)'),
  destination: z.string().describe('Destination airport (IATA)'),
  date: z.iso.date().describe('Departure date searched'),
  cabin: z.enum(CABINS).nullable().describe('The cabin searched; null: every cabin'),
  options: z.array(option).describe('Award options found, by cabin (economy first) then fewest miles; empty when no programme has space that day'),
  has_more: z.boolean().describe('Seats.aero holds more records than the first page read here'),
  retrieved_at: z.iso.datetime().describe('When this instance read Seats.aero, ISO 8601'),
  source: z
    .object({ provider: z.string().describe('The data provider'), url: z.string().describe('The cached-search request (the key travels in a header, never in the URL)') })
    .describe('Where the options come from'),
});

/** A search with no possible answer is refused before payment: a departure day before today (UTC), or a route to itself. */
function refuseImpossible(input: { origin: string; destination: string; date: string }, now: Date): void {
  if (input.date < now.toISOString().slice(0, 10)) throw new ProductInputError(`${input.date} is in the past: award space is searched for departures from today on`, 422, 'date');
  if (input.origin === input.destination) throw new ProductInputError('origin and destination are the same airport', 422, 'destination');
}

/**
 * Award availability from Seats.aero's Partner API (cached search across mileage programmes, the
 * data behind seats.aero's own search); on sale where SEATS_AERO_API_KEY is set.
 */
export const awardFlightSearch = product({
  id: 'award-flight-search',
  title: 'Award flight search',
  description:
    'Searches award (points/miles) flight availability between two airports on a date, across mileage programmes, from Seats.aero, and returns each option with its programme, cabin, miles, taxes, seats left, airlines and whether a non-stop exists, each citing its Seats.aero record id. A past date is refused before payment; a day without award space is an empty list.',
  price: '0.02',
  annotations: READ_EXTERNAL,
  input: z.object({
    origin: z.string().regex(/^[A-Z]{3}$/).describe('Origin airport IATA code'),
    destination: z.string().regex(/^[A-Z]{3}$/).describe('Destination airport IATA code'),
    date: z.iso.date().describe('Departure date, YYYY-MM-DD'),
    cabin: z.enum(CABINS).optional().describe('Cabin (default: all)'),
  }),
  inputExample: { origin: 'JFK', destination: 'LHR', date: '2027-09-15', cabin: 'business' },
  output: awardFlightSearchOutput,
  outputExample: {
    origin: 'JFK',
    destination: 'LHR',
    date: '2027-09-15',
    cabin: 'business',
    options: [
      {
        id: '2xYfA1fixture0virgin',
        programme: 'virginatlantic',
        cabin: 'business',
        miles: 47500,
        taxes: { amount: 1012.4, currency: 'USD', amount_minor: 101240 },
        remaining_seats: 2,
        airlines: ['VS'],
        nonstop_available: true,
        updated_at: '2025-05-31T22:40:03.117Z',
      },
      {
        id: '2xYfA1fixture0aeroplan',
        programme: 'aeroplan',
        cabin: 'business',
        miles: 60000,
        taxes: { amount: 256.44, currency: 'CAD', amount_minor: 25644 },
        remaining_seats: null,
        airlines: ['AC', 'LH'],
        nonstop_available: false,
        updated_at: '2025-05-31T22:40:03.117Z',
      },
    ],
    has_more: false,
    retrieved_at: '2025-06-01T12:00:00.000Z',
    source: {
      provider: 'Seats.aero',
      url: 'http://providers.invalid/seatsaero/partnerapi/search?origin_airport=JFK&destination_airport=LHR&start_date=2027-09-15&end_date=2027-09-15&cabin=business',
    },
  },
  requires: ['award-flights'],
  precheck: async (input, ctx) => refuseImpossible(input, ctx.now),
  run: async (input, ctx) => {
    refuseImpossible(input, ctx.now);
    const seatsAero = dataProvider(ctx, 'flights');
    const found = await seatsAero.search({ origin: input.origin, destination: input.destination, date: input.date, ...(input.cabin ? { cabin: input.cabin } : {}) }, ctx.signal);
    return {
      origin: input.origin,
      destination: input.destination,
      date: input.date,
      cabin: input.cabin ?? null,
      options: found.options,
      has_more: found.has_more,
      retrieved_at: ctx.now.toISOString(),
      source: { provider: seatsAero.name, url: found.source_url },
    };
  },
});
