import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { ON_SALE } from '../routing.fixture.ts';
import { routeTask } from './index.ts';

describe('route-task', () => {
  it('3 free queries per wallet per day, top-1 only; paid returns the ranked list', async () => {
    expect(routeTask.freeTier).toMatchObject({ perWalletPerDay: 3, resultLimit: 1 });
    const input = routeTask.input.parse({ task: 'server time echo timestamp' });
    expect((await routeTask.run(input, fakeContext({ tier: 'free', catalogue: ON_SALE }))).count).toBe(1);
    expect((await routeTask.run(input, fakeContext({ catalogue: ON_SALE }))).recommendations.map((r) => r.id).slice(0, 2)).toEqual(['time', 'echo']);
  });
});
