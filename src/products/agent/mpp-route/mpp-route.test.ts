import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { ON_SALE } from '../routing.fixture.ts';
import { mppRoute } from './index.ts';

describe('mpp-route', () => {
  it('is payable over MPP as well as x402, and routes like the others', async () => {
    expect(mppRoute.rails).toEqual({ x402: ['evm', 'solana'], mpp: true });
    const out = await mppRoute.run(mppRoute.input.parse({ task: 'server time' }), fakeContext({ tier: 'free', catalogue: ON_SALE }));
    expect(out).toMatchObject({ tier: 'free', count: 1, recommendations: [{ id: 'time' }] });
  });
});
