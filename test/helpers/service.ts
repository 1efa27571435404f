import { afterAll, beforeAll, inject } from 'vitest';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FacilitatorClient } from '@x402/core/server';
import type { Product } from '../../src/catalogue/types.ts';
import { loadConfig } from '../../src/config.ts';
import { startDevChain, type DevChain } from '../../src/devchain/stack.ts';
import type { SolanaDevChain } from '../../src/devchain/solana.ts';
import { usdcBalance } from '../../src/devchain/contracts.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import { pooledStore } from './store-pool.ts';
import { startService, type RunningService, type StartOptions } from '../../src/runtime.ts';

export const silentLog = createLogger('silent');

export const RELAXED_RATE_LIMITS = 'registration=100000/h,token=100000/m,proof=100000/m,free=100000/m';

/** The migrated store template of this test run (test/global-setup.ts), if there is one. */
export function storeTemplate(): string | undefined {
  try {
    return inject('storeTemplate');
  } catch {
    return undefined;
  }
}

export function tempDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'percall-test-'));
}

export function startTestChain(): Promise<DevChain> {
  return startDevChain({ log: silentLog });
}

/** The whole service in dev mode on a free port, against the given chain, with a throwaway data dir. */
export async function startTestService(options: {
  chain: DevChain;
  dataDir?: string;
  products?: readonly Product[];
  wrapFacilitator?: (f: FacilitatorClient) => FacilitatorClient;
  env?: Record<string, string>;
  log?: Logger;
  solanaDevChain?: SolanaDevChain;
  wrapStore?: StartOptions['wrapStore'];
  clock?: () => Date;
}): Promise<RunningService & { dataDir: string }> {
  const dataDir = options.dataDir ?? (await tempDataDir());
  const template = storeTemplate();
  // Test files call from one loopback address many times: generous limits unless a test sets its own.
  // No block index unless a test asks for one (INDEX_CHAINS): it is a process of its own per service.
  const config = loadConfig({ PERCALL_MODE: 'dev', PORT: '0', PERCALL_DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMITS: RELAXED_RATE_LIMITS, INDEX_CHAINS: 'off', ...options.env });
  const service = await startService({
    config,
    log: options.log ?? silentLog,
    devChain: options.chain,
    solanaDevChain: options.solanaDevChain,
    products: options.products,
    wrapFacilitator: options.wrapFacilitator,
    wrapStore: options.wrapStore,
    clock: options.clock,
    storeTemplate: template,
    // A service given a data directory may be a restart on it: its store lives there. Otherwise
    // its database lives in a reused engine (test/helpers/store-pool.ts).
    ...(template && !options.dataDir ? { openStore: () => pooledStore(template) } : {}),
  });
  return { ...service, dataDir };
}

export function balances(chain: DevChain): Promise<{ buyer: bigint; payTo: bigint }> {
  return Promise.all([usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address), usdcBalance(chain.rpcUrl, chain.usdc, chain.payTo)]).then(
    ([buyer, payTo]) => ({ buyer, payTo }),
  );
}

/** A logger at the most verbose level whose lines are kept in memory, to check what reaches logs. */
export function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: createLogger('trace', { write: (line: string) => void lines.push(line) }), lines };
}

/**
 * A chain and the service on it for a whole test file: started before its tests, stopped after.
 * `bind` hands them to the file's own variables.
 */
export function useTestService(
  bind: (chain: DevChain, service: RunningService & { dataDir: string }) => void,
  options: Omit<Parameters<typeof startTestService>[0], 'chain'> = {},
): void {
  let chain: DevChain | undefined;
  let service: (RunningService & { dataDir: string }) | undefined;
  beforeAll(async () => {
    chain = await startTestChain();
    service = await startTestService({ ...options, chain });
    bind(chain, service);
  });
  afterAll(async () => {
    await service?.stop();
    await chain?.stop();
  });
}
