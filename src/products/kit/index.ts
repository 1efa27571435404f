/**
 * The product kit: what a product is built from. Products import this and providers, never the
 * catalogue (which imports products). Test helpers live in ./fake-context.ts, kept out of this
 * barrel so the running service never loads them.
 */
export * from './types.ts';
export type * from './chain-index.ts';
export type * from './bazaar-market.ts';
export type * from './payments-desk.ts';
export type * from './operator-wallet.ts';
export { OperatorCapReached } from './operator-wallet.ts';
export { ProductInputError, UpstreamError, fetchFailure, isCallerTarget } from './errors.ts';
export { CHAIN_NOT_CONFIGURED, evmChainOf, solanaOf, rpcFailure, rpcRead } from './chains.ts';
export { fetchPage } from './fetch-page.ts';
export { dataProvider, trimmedText } from './data.ts';
export { EventStreamOutput } from './event-stream.ts';
export { rankProducts, type RankedProduct } from './rank.ts';
export { priceVariants, pricedForInput, pricedAt } from './price-by-input.ts';
export * from './fields.ts';
export {
  PAID_PREFIX,
  FIXED,
  X402_BOTH,
  X402_AND_MPP,
  upto,
  snakeCase,
  product,
  planned,
  domain,
  available,
  unavailable,
  type AvailableDraft,
  type PlannedDraft,
  type Draft,
  type Domain,
} from './define.ts';
