import type { DataProviders } from '../../providers/data.ts';
import { UpstreamError } from './errors.ts';
import type { ProductContext } from './types.ts';

type Adapter = Exclude<keyof DataProviders, 'kinds' | 'stats'>;

/**
 * The data provider a product needs, from its context. A product `requires` its kind, so it is on
 * sale only where the provider is configured; reaching here without one is our failure (502).
 */
export function dataProvider<K extends Adapter>(ctx: ProductContext, which: K): NonNullable<DataProviders[K]> {
  const provider = ctx.data?.[which];
  if (!provider) throw new UpstreamError(`no ${which} provider is configured on this instance`);
  return provider as NonNullable<DataProviders[K]>;
}

/** A non-empty text once trimmed: a query of blanks is refused before payment. */
export const trimmedText = (text: string) => text.trim().length > 0;
