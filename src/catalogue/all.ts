import { agentProducts } from './agent.ts';
import { bazaarProducts } from './bazaar.ts';
import { chainProducts } from './chain.ts';
import { inferenceProducts } from './inference.ts';
import { marketProducts } from './market.ts';
import { paymentsProducts } from './payments.ts';
import { peopleProducts } from './people.ts';
import { researchProducts } from './research.ts';
import { textProducts } from './text.ts';
import type { Product } from './types.ts';
import { utilityProducts } from './utility.ts';
import { webProducts } from './web.ts';

/** Every product of the service, the single source of truth for routes, tools and discovery documents. */
export const ALL_PRODUCTS: readonly Product[] = [
  ...utilityProducts,
  ...webProducts,
  ...chainProducts,
  ...bazaarProducts,
  ...textProducts,
  ...researchProducts,
  ...inferenceProducts,
  ...agentProducts,
  ...paymentsProducts,
  ...peopleProducts,
  ...marketProducts,
];
