import { READ, product } from '../../kit/index.ts';
import { ROUTE_FREE_RESULTS, routeExample, routeInput, routeOutput, routeOutputExample, routeTask as run } from '../routing.ts';

export const routeTask = product({
  id: 'route-task',
  title: 'Route task',
  description:
    'Returns the ranked endpoints that can perform a task, with price and how to call them; when nothing on sale fits, an empty list (charged). Free tier: 3 queries per day per wallet, top-1 result only.',
  price: '0.01',
  annotations: READ,
  input: routeInput,
  inputExample: routeExample,
  output: routeOutput,
  outputExample: routeOutputExample,
  publishOutputSchema: false,
  freeTier: { perWalletPerDay: 3, resultLimit: ROUTE_FREE_RESULTS, note: '3 free queries per wallet per day, top-1 result only' },
  run: run(ROUTE_FREE_RESULTS),
});
