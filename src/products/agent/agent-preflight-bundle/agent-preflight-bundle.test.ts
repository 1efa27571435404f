import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import type { AvailableProduct } from '../../kit/index.ts';
import { domain } from '../../kit/index.ts';
import { time } from '../../utility/time/index.ts';
import { bazaarPulse } from '../../bazaar/bazaar-pulse/index.ts';
import { bazaarMarketReport } from '../../bazaar/bazaar-market-report/index.ts';
import { twoDays } from '../../bazaar/fixture.ts';
import { agentPreflightBundle } from './index.ts';

const catalogue = [...domain('utility', [time]).products, ...domain('bazaar', [bazaarPulse, bazaarMarketReport]).products] as AvailableProduct[];

describe('agent-preflight-bundle', () => {
  it('runs each member and keys its result by name', async () => {
    const out = await agentPreflightBundle.run({ utilities: [{ name: 'server_time' }, { name: 'bazaar_pulse' }, { name: 'server_time' }] }, fakeContext({ catalogue, bazaar: twoDays() }));
    expect(agentPreflightBundle.output.parse(out)).toEqual(out);
    expect(Object.keys(out.results)).toEqual(['server_time', 'bazaar_pulse', 'server_time#2']);
    expect(out.results.server_time).toEqual({ time: '2025-06-01T12:00:00.000Z', unix: 1748779200 });
    expect((out.results.bazaar_pulse as { totals: { listings: number } }).totals.listings).toBe(5);
  });

  it('refuses a member that is not bundleable (the 0.50 report) and a bad member argument, naming the field', async () => {
    const ctx = fakeContext({ catalogue, bazaar: twoDays() });
    await expect(agentPreflightBundle.run({ utilities: [{ name: 'bazaar_market_report' }] }, ctx)).rejects.toMatchObject({ status: 422, field: 'utilities.0.name' });
    await expect(agentPreflightBundle.run({ utilities: [{ name: 'server_time' }, { name: 'nope' }] }, ctx)).rejects.toMatchObject({ field: 'utilities.1.name' });
  });

  it('a failed member fails the whole bundle', async () => {
    await expect(agentPreflightBundle.run({ utilities: [{ name: 'server_time' }, { name: 'bazaar_pulse' }] }, fakeContext({ catalogue, bazaar: { snapshots: async () => [], listings: async () => [], history: async () => [] } }))).rejects.toMatchObject({ status: 503, field: 'utilities.1' });
  });
});
