import { describe, expect, it } from 'vitest';
import { fakeContext } from '../kit/fake-context.ts';
import { ON_SALE } from './routing.fixture.ts';
import { ROUTE_FREE_RESULTS, routeInput, routeOutput, routeTask as route } from './routing.ts';

const run = (input: unknown, tier: 'paid' | 'free' = 'paid') => route(ROUTE_FREE_RESULTS)(routeInput.parse(input), fakeContext({ tier, catalogue: ON_SALE }));

describe('routing (route-task, agent-route, mpp-route)', () => {
  it('ranks the tools on sale for a task, with how to call them and their price', async () => {
    const out = await run({ task: 'server time echo timestamp' });
    expect(out).toMatchObject({ task: 'server time echo timestamp', tier: 'paid', limit: 3 });
    expect(out.recommendations.map((r) => r.id).slice(0, 2)).toEqual(['time', 'echo']);
    expect(out.recommendations[0]).toMatchObject({
      rank: 1,
      category: 'utility',
      http: { method: 'GET', path: '/api/v1/paid/time', price_usd: '0.01' },
      mcp: { tool: 'server_time', price_usd: '0.01' },
    });
    expect(out.note).toBeUndefined();
    expect(routeOutput.safeParse(out).success).toBe(true);
  });

  it('a free call returns the top-1 only', async () => {
    expect(await run({ task: 'server time echo timestamp' }, 'free')).toMatchObject({ tier: 'free', limit: 1, count: 1, recommendations: [{ id: 'time' }] });
  });

  it('never recommends a routing product; nothing that fits (or fits max_price) is an empty list with a note', async () => {
    expect((await run({ task: 'route a task' })).recommendations.map((r) => r.id)).not.toContain('route-task');
    expect((await run({ task: 'web page extraction' })).recommendations.map((r) => r.id)).toEqual(['web-extract']);
    expect(await run({ task: 'web page extraction', max_price: '0.02' })).toMatchObject({ count: 0, recommendations: [], note: 'no tool on sale matches this task' });
    expect(await run({ task: 'weather forecast in lisbon' })).toMatchObject({ count: 0, note: 'no tool on sale matches this task' });
  });

  it('refuses a task without words and a max_price that is not USD', () => {
    expect(routeInput.safeParse({ task: '!!!' }).error?.issues[0]?.message).toBe('must name the task in words');
    expect(routeInput.safeParse({ task: 'time', max_price: '0.0000001' }).success).toBe(false);
  });
});
