import type { Network } from '@x402/core/types';
import ipaddr from 'ipaddr.js';
import type { Hex } from 'viem';
import type { Logger } from '../../log.ts';
import type { OperatorLedger, OperatorWallet } from '../../products/kit/operator-wallet.ts';
import type { UpstreamProvider } from '../../products/kit/types.ts';
import { safeFetch, type FetchPolicy } from '../../providers/safe-fetch.ts';
import type { SettlementChain } from '../settlement-chain.ts';
import type { PaymentOffer } from '../x402-rail.ts';
import { gatewaySellers, type OperatorSettings } from './settings.ts';
import { createOperatorWallet } from '../../providers/operator-wallet.ts';

export { gatewaySellers, operatorSettingsFromEnv, parseSellers, SELF_SELLER, type OperatorSettings } from './settings.ts';

/**
 * The operator's wallet of this instance: with a payer key (OPERATOR_PAYER_PRIVATE_KEY, or the dev
 * chain's operator account) and an EVM offer, it pays in that offer's network and USDC. Without
 * them the products that need it are unavailable.
 */
export function operatorWalletFor(deps: {
  key?: Hex;
  settings: OperatorSettings;
  /** Where this instance listens: the dev gateway's own seller (see gatewaySellers). */
  listenUrl?: string;
  offers: readonly PaymentOffer[];
  ledger: OperatorLedger;
  fetchPolicy: FetchPolicy;
  chain?: Pick<SettlementChain, 'authorizationUsed' | 'findTransfer' | 'latestBlockTime'>;
  log: Logger;
  onPaid?(product: string, amountAtomic: bigint): void;
  clock?: () => Date;
}): OperatorWallet | undefined {
  const offer = deps.offers.find((o) => o.family === 'evm');
  if (!deps.key || !offer) return undefined;
  return createOperatorWallet({
    key: deps.key,
    network: offer.network as Network,
    asset: offer.asset,
    dailySpendCap: deps.settings.dailySpendCap,
    fetchMaxPrice: deps.settings.fetchMaxPrice,
    sellers: gatewaySellers(deps.settings, deps.listenUrl),
    ledger: deps.ledger,
    sellerFetch: (url, request) => safeFetch(url, request, sellerFetchPolicy(url, deps.fetchPolicy)),
    ...(deps.chain ? { chain: deps.chain } : {}),
    log: deps.log,
    ...(deps.onPaid ? { onPaid: deps.onPaid } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
}

/**
 * The fetch policy for a URL of an allowlisted seller. The operator listed its sellers itself, so one
 * on this machine (a dev seller, percall itself) is reached on loopback; any other seller keeps
 * loopback closed, so neither it nor a redirect it answers with reaches this machine's services.
 */
export function sellerFetchPolicy(url: string, policy: FetchPolicy): FetchPolicy {
  return !policy.allowLoopback && onThisMachine(url) ? { ...policy, allowLoopback: true } : policy;
}

function onThisMachine(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return host === 'localhost' || (ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback');
}

/** What the operator's wallet puts on sale: `operator` with a wallet, `gateway` with its allowlist too. */
export function operatorUpstreams(wallet: OperatorWallet | undefined): UpstreamProvider[] {
  if (!wallet) return [];
  return wallet.sellers.size > 0 ? ['operator', 'gateway'] : ['operator'];
}
