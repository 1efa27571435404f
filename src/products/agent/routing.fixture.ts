// Test fixture: what the routing products see on sale in their unit tests.
import { domain, type AvailableProduct } from '../kit/index.ts';
import { echo } from '../utility/echo/index.ts';
import { time } from '../utility/time/index.ts';
import { webExtract } from '../web/web-extract/index.ts';
import { routeTask } from './route-task/index.ts';

/** Two utilities, a web product and a router. */
export const ON_SALE = [
  ...domain('utility', [time, echo]).products,
  ...domain('web', [webExtract]).products,
  ...domain('agent', [routeTask]).products,
] as AvailableProduct[];
