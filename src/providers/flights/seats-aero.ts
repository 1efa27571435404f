/**
 * Seats.aero's Partner API, Cached Search (https://developers.seats.aero/):
 * `GET /search?origin_airport=&destination_airport=&start_date=&end_date=&cabin=` with the key as
 * the `Partner-Authorization` header. It answers `{ data: [Availability…], count, hasMore, cursor }`,
 * one Availability per mileage programme (`Source`), route and date, with each cabin's figures under
 * its letter: Y economy, W premium economy, J business, F first (`JAvailable`, `JMileageCost`,
 * `JTotalTaxes` in minor units of `TaxesCurrency`, `JRemainingSeats`, 0 where the programme publishes
 * no seat count, `JAirlines` a comma list, `JDirect` whether a non-stop exists in that cabin).
 */
import type { ProviderClient, ProviderRequest } from '../api/client.ts';

export const CABINS = ['economy', 'premium_economy', 'business', 'first'] as const;
export type Cabin = (typeof CABINS)[number];

const LETTER: Record<Cabin, 'Y' | 'W' | 'J' | 'F'> = { economy: 'Y', premium_economy: 'W', business: 'J', first: 'F' };
/** The `cabin` query values Cached Search takes. */
const QUERY_CABIN: Record<Cabin, string> = { economy: 'economy', premium_economy: 'premium', business: 'business', first: 'first' };

export interface AwardTaxes {
  /** In the currency's units: Seats.aero's minor units divided by 100. */
  amount: number;
  currency: string | null;
  /** As Seats.aero gives it (cents and the like). */
  amount_minor: number;
}

export interface AwardOption {
  /** Seats.aero's availability record id. */
  id: string;
  /** The mileage programme (Seats.aero's `Source`, e.g. `aeroplan`). */
  programme: string;
  cabin: Cabin;
  miles: number;
  taxes: AwardTaxes | null;
  remaining_seats: number | null;
  airlines: string[];
  nonstop_available: boolean | null;
  updated_at: string | null;
}

export interface AwardSearch {
  options: AwardOption[];
  /** Seats.aero has more records than this first page. */
  has_more: boolean;
  /** The request (the key travels in a header, never in the URL). */
  source_url: string;
}

export interface AwardSearchQuery {
  origin: string;
  destination: string;
  date: string;
  cabin?: Cabin;
}

export interface AwardFlightProvider {
  readonly name: string;
  /** The options on exactly that route and day (records of other days or airports are left out). */
  search(query: AwardSearchQuery, signal?: AbortSignal): Promise<AwardSearch>;
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
/** Mileage costs come as strings ("60000"), counts and taxes as integers. */
const count = (value: unknown): number | undefined => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : undefined;
};

function option(record: Json, cabin: Cabin): AwardOption | undefined {
  const L = LETTER[cabin];
  const miles = count(record[`${L}MileageCost`]);
  if (record[`${L}Available`] !== true || !miles) return undefined;
  const taxes = count(record[`${L}TotalTaxes`]);
  const seats = count(record[`${L}RemainingSeats`]);
  const direct = record[`${L}Direct`];
  return {
    id: str(record.ID)!,
    programme: str(record.Source) ?? str(obj(record.Route).Source) ?? 'unknown',
    cabin,
    miles,
    // Some programmes publish no taxes (0 and no currency): unknown, not free.
    taxes: taxes ? { amount: taxes / 100, currency: str(record.TaxesCurrency), amount_minor: taxes } : null,
    // 0 is Seats.aero's "this programme gives no seat count".
    remaining_seats: seats ? seats : null,
    airlines: (str(record[`${L}Airlines`]) ?? '').split(',').map((a) => a.trim()).filter(Boolean),
    nonstop_available: typeof direct === 'boolean' ? direct : null,
    updated_at: str(record.UpdatedAt),
  };
}

export class SeatsAeroAwards implements AwardFlightProvider {
  readonly name = 'Seats.aero';

  constructor(private readonly client: ProviderClient) {}

  async search(query: AwardSearchQuery, signal?: AbortSignal): Promise<AwardSearch> {
    const request: ProviderRequest = {
      path: '/search',
      query: { origin_airport: query.origin, destination_airport: query.destination, start_date: query.date, end_date: query.date, cabin: query.cabin && QUERY_CABIN[query.cabin] },
    };
    const body = obj((await this.client.request(request, signal)).body);
    if (!Array.isArray(body.data)) throw this.client.invalid('answered a search without a data list');
    const cabins = query.cabin ? [query.cabin] : CABINS;
    const records = body.data.map(obj).filter((r) => str(r.ID) && str(r.Date) === query.date && str(obj(r.Route).OriginAirport) === query.origin && str(obj(r.Route).DestinationAirport) === query.destination);
    const options = records
      .flatMap((r) => cabins.map((cabin) => option(r, cabin)))
      .filter((o): o is AwardOption => o !== undefined)
      .sort((a, b) => CABINS.indexOf(a.cabin) - CABINS.indexOf(b.cabin) || a.miles - b.miles);
    return { options, has_more: body.hasMore === true, source_url: this.client.citedUrl(request) };
  }
}
