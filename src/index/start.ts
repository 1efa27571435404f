/**
 * Starts the block index for the service: the chains of INDEX_CHAINS that have an RPC (in dev mode
 * `base` is the local anvil chain, eip155:31337), under `<dataDir>/index.duckdb` unless INDEX_PATH
 * says otherwise. The worker starts in the background; the service does not wait for it.
 */
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { describeError, type Logger } from '../log.ts';
import { EVM_CHAIN_DEFAULTS, type ChainSettings } from '../providers/chains.ts';
import type { Store } from '../store/types.ts';
import { IndexService, type IndexChainSettings } from './service.ts';

export function indexPath(config: Config): string {
  return config.index.path ?? join(config.dataDir, 'index.duckdb');
}

/** The index chains with their endpoints, from the same chain settings the chain products read. */
export function indexChains(config: Config, chains: ChainSettings, log?: Logger): IndexChainSettings[] {
  const out: IndexChainSettings[] = [];
  for (const name of config.index.chains) {
    const settings = chains.evm.find((c) => c.chain === name);
    if (!settings) {
      log?.warn({ chain: name }, 'INDEX_CHAINS names a chain without an RPC (EVM_RPC_URLS): not indexed');
      continue;
    }
    const chainId = settings.chainId ?? EVM_CHAIN_DEFAULTS[name].chain.id;
    // A local dev chain has no plan to protect: its own (large) budget; remote endpoints INDEX_RPC_BUDGET_PER_SECOND or the products' budget.
    const budgetPerSecond = config.index.rpcBudgetPerSecond ?? settings.budgetPerSecond;
    out.push({ chain: name, chainId, urls: settings.urls, network: `eip155:${chainId}`, ...(budgetPerSecond ? { budgetPerSecond } : {}) });
  }
  return out;
}

/** The index service of this instance, started in the background; undefined when nothing is indexed. */
export function startIndex(config: Config, chains: ChainSettings, store: Store, log: Logger): IndexService | undefined {
  const indexed = indexChains(config, chains, log);
  if (indexed.length === 0) return undefined;
  // One indexer for several instances needs their shared database; on an embedded one each instance is alone.
  const peer = config.index.peer;
  if (peer && !config.databaseUrl) log.warn('INDEX_PEER_URL is set without DATABASE_URL: this instance indexes on its own');
  const service = new IndexService({
    settings: config.index,
    path: indexPath(config),
    chains: indexed,
    rpc: { budgetPerSecond: chains.budgetPerSecond, timeoutMs: chains.timeoutMs },
    store,
    log,
    ...(peer && config.databaseUrl ? { lease: { store, instanceId: config.instanceId, peer, renewMs: config.index.leaseRenewMs } } : {}),
  });
  service.start().then(
    () => log.info({ chains: indexed.map((c) => `${c.chain} (${c.network})`) }, 'block index open'),
    (error: unknown) => log.error({ err: describeError(error) }, 'block index failed to start'),
  );
  return service;
}
