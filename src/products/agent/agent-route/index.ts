import { READ, product } from '../../kit/index.ts';
import { ROUTE_FREE_RESULTS, routeExample, routeInput, routeOutput, routeOutputExample, routeTask } from '../routing.ts';

export const agentRoute = product({
  id: 'agent-route',
  title: 'Agent route',
  description:
    'Recommends the paid endpoint(s) best suited to a task: the free call returns the top-1 recommendation, a paid call returns the ranked top three with price, network and why. When nothing on sale fits, the answer is an empty list (charged).',
  price: '0.01',
  annotations: READ,
  input: routeInput,
  inputExample: routeExample,
  output: routeOutput,
  outputExample: routeOutputExample,
  publishOutputSchema: false,
  freeTier: { resultLimit: ROUTE_FREE_RESULTS, note: 'a free call returns the top-1 recommendation only; paid returns the ranked top three' },
  run: routeTask(ROUTE_FREE_RESULTS),
});
