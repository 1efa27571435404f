import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { ON_SALE } from '../routing.fixture.ts';
import { agentRoute } from './index.ts';

describe('agent-route', () => {
  it('the free call returns the top-1, the paid call the top three', async () => {
    expect(agentRoute.freeTier).toMatchObject({ resultLimit: 1 });
    expect(agentRoute.freeTier?.perWalletPerDay).toBeUndefined();
    const input = agentRoute.input.parse({ task: 'server time echo timestamp' });
    expect((await agentRoute.run(input, fakeContext({ tier: 'free', catalogue: ON_SALE }))).recommendations).toHaveLength(1);
    expect((await agentRoute.run(input, fakeContext({ catalogue: ON_SALE }))).recommendations.length).toBeGreaterThan(1);
  });
});
