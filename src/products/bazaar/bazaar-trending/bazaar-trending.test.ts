import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { twoDays } from '../fixture.ts';
import { bazaarTrending } from './index.ts';

describe('bazaar-trending', () => {
  it('ranks services by reported-calls growth, then listing growth; new services are trending', async () => {
    const out = await bazaarTrending.run({}, fakeContext({ bazaar: twoDays() }));
    expect(bazaarTrending.output.parse(out)).toEqual(out);
    expect(out.window.snapshots).toBe(2);
    // ai: 40 → 70 calls (+30); scrape: 10 → 12 (+2); prices: new; weather fell (100 → 90): not trending.
    expect(out.trending.map((t) => [t.service, t.signal, t.calls_growth, t.listing_growth])).toEqual([
      ['https://ai.invalid', 'calls', 30, 1],
      ['https://scrape.invalid', 'calls', 2, 0],
      ['https://prices.invalid', 'new', null, 1],
    ]);
  });
});
