/**
 * GLEIF's LEI API (https://www.gleif.org/en/lei-data/gleif-api, JSON:API): `GET /lei-records/{lei}`,
 * `GET /lei-records?filter[fulltext]=…&filter[entity.legalAddress.country]=…&page[size]=…`, and a
 * record's `/direct-parent` and `/ultimate-parent` (404 when none is reported). Public and keyless.
 */
import type { ProviderClient } from '../api/client.ts';

export interface LeiAddress {
  lines: string[];
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country: string | null;
}

export interface LeiRecord {
  lei: string;
  legal_name: string;
  other_names: string[];
  entity_status: string | null;
  registration_status: string | null;
  jurisdiction: string | null;
  category: string | null;
  legal_form: string | null;
  legal_address: LeiAddress;
  headquarters_address: LeiAddress;
  registered_at: string | null;
  last_updated_at: string | null;
  next_renewal_at: string | null;
  /** GLEIF's own page of the record. */
  source_url: string;
}

export interface LeiParent {
  lei: string;
  legal_name: string;
}

export interface LeiProvider {
  readonly name: string;
  /** The record of one LEI; undefined when GLEIF has none. */
  byLei(lei: string, signal?: AbortSignal): Promise<LeiRecord | undefined>;
  search(text: string, options: { country?: string; limit: number }, signal?: AbortSignal): Promise<LeiRecord[]>;
  /** The reported parent of an LEI (`direct` or `ultimate`); null when none is reported. */
  parent(lei: string, which: 'direct' | 'ultimate', signal?: AbortSignal): Promise<LeiParent | null>;
}

type Json = Record<string, unknown>;
const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});

function address(value: unknown): LeiAddress {
  const a = obj(value);
  return {
    lines: Array.isArray(a.addressLines) ? a.addressLines.filter((l): l is string => typeof l === 'string') : [],
    city: str(a.city),
    region: str(a.region),
    postal_code: str(a.postalCode),
    country: str(a.country),
  };
}

export class GleifLei implements LeiProvider {
  readonly name = 'GLEIF';

  constructor(private readonly client: ProviderClient) {}

  private record(data: unknown): LeiRecord {
    const d = obj(data);
    const attributes = obj(d.attributes);
    const entity = obj(attributes.entity);
    const registration = obj(attributes.registration);
    const lei = str(attributes.lei) ?? str(d.id);
    const legalName = str(obj(entity.legalName).name);
    if (!lei || !legalName) throw this.client.invalid('answered a record without an LEI or legal name');
    return {
      lei,
      legal_name: legalName,
      other_names: (Array.isArray(entity.otherNames) ? entity.otherNames : []).map((n) => str(obj(n).name)).filter((n): n is string => n !== null),
      entity_status: str(entity.status),
      registration_status: str(registration.status),
      jurisdiction: str(entity.jurisdiction),
      category: str(entity.category),
      legal_form: str(obj(entity.legalForm).id),
      legal_address: address(entity.legalAddress),
      headquarters_address: address(entity.headquartersAddress),
      registered_at: str(registration.initialRegistrationDate),
      last_updated_at: str(registration.lastUpdateDate),
      next_renewal_at: str(registration.nextRenewalDate),
      source_url: `https://search.gleif.org/#/record/${lei}`,
    };
  }

  async byLei(lei: string, signal?: AbortSignal): Promise<LeiRecord | undefined> {
    const answer = await this.client.request({ path: `/lei-records/${encodeURIComponent(lei)}`, accept: [404] }, signal);
    if (answer.status === 404) return undefined;
    return this.record(obj(answer.body).data);
  }

  async search(text: string, options: { country?: string; limit: number }, signal?: AbortSignal): Promise<LeiRecord[]> {
    const answer = await this.client.request(
      { path: '/lei-records', query: { 'filter[fulltext]': text, 'filter[entity.legalAddress.country]': options.country, 'page[size]': options.limit, 'page[number]': 1 } },
      signal,
    );
    const data = obj(answer.body).data;
    if (!Array.isArray(data)) throw this.client.invalid('answered a search without a data list');
    return data.map((d) => this.record(d));
  }

  async parent(lei: string, which: 'direct' | 'ultimate', signal?: AbortSignal): Promise<LeiParent | null> {
    const answer = await this.client.request({ path: `/lei-records/${encodeURIComponent(lei)}/${which}-parent`, accept: [404] }, signal);
    if (answer.status === 404) return null;
    const record = this.record(obj(answer.body).data);
    return { lei: record.lei, legal_name: record.legal_name };
  }
}

/** ISO 17442: 18 alphanumerics and 2 check digits, the whole (letters as 10..35) ≡ 1 mod 97. */
export function isValidLei(text: string): boolean {
  if (!/^[A-Z0-9]{18}[0-9]{2}$/.test(text)) return false;
  let remainder = 0;
  for (const char of text) {
    const digits = /[0-9]/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}
