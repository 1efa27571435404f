import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { twoDays } from '../fixture.ts';
import { listingTriage } from './index.ts';

describe('listing-triage', () => {
  it('gives each listing its verdict from its history', async () => {
    const ctx = fakeContext({ bazaar: twoDays() });
    const weather = await listingTriage.run({ resource_url: 'https://weather.invalid/api/forecast' }, ctx);
    expect(listingTriage.output.parse(weather)).toEqual(weather);
    expect(weather).toMatchObject({ verdict: 'changed', price_changes: [{ day: '2025-05-31', from_price_usd: 0.01, to_price_usd: 0.02 }], snapshots_present: 2 });
    expect((await listingTriage.run({ resource_url: 'https://ai.invalid/v1/chat' }, ctx)).verdict).toBe('stable');
    expect((await listingTriage.run({ resource_url: 'https://prices.invalid/token/price' }, ctx)).verdict).toBe('new');
    expect(await listingTriage.run({ resource_url: 'https://chain.invalid/wallet/balance' }, ctx)).toMatchObject({ verdict: 'delisted', in_latest: false, last_seen: '2025-05-30' });
    await expect(listingTriage.run({ resource_url: 'https://nowhere.invalid/' }, ctx)).rejects.toMatchObject({ status: 422, field: 'resource_url' });
  });

  it('refuses before payment a listing never seen; a delisted one still passes', async () => {
    const ctx = fakeContext({ bazaar: twoDays() });
    await expect(listingTriage.precheck!({ resource_url: 'https://nowhere.invalid/' }, ctx)).rejects.toMatchObject({ status: 422, field: 'resource_url', code: 'unknown_listing' });
    await expect(listingTriage.precheck!({ resource_url: 'https://chain.invalid/wallet/balance' }, ctx)).resolves.toBeUndefined();
  });
});
