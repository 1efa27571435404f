import { READ, product } from '../../kit/index.ts';
import { ROUTE_FREE_RESULTS, routeExample, routeInput, routeOutput, routeOutputExample, routeTask } from '../routing.ts';

export const mppRoute = product({
  id: 'mpp-route',
  title: 'MPP route',
  description:
    'Recommends endpoints for a task, payable via MPP or x402: the free call returns the top-1 recommendation, a paid call returns the ranked top three. When nothing on sale fits, the answer is an empty list (charged).',
  price: '0.01',
  mpp: true,
  annotations: READ,
  input: routeInput,
  inputExample: routeExample,
  output: routeOutput,
  outputExample: routeOutputExample,
  publishOutputSchema: false,
  freeTier: { resultLimit: ROUTE_FREE_RESULTS, note: 'a free call returns the top-1 recommendation only; paid returns the ranked top three' },
  run: routeTask(ROUTE_FREE_RESULTS),
});
