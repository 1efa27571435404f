import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FacilitatorClient } from '@x402/core/server';
import type { Network } from '@x402/core/types';
import type { Hex } from 'viem';
import type { SolanaDevChain, SolanaDevInfo } from './devchain/solana.ts';
import { createPercall, type Percall } from './app.ts';
import type { Product } from './catalogue/types.ts';
import { BASE_MAINNET, type Config } from './config.ts';
import type { DevChain, DevInfo } from './devchain/stack.ts';
import { describeError, type Logger } from './log.ts';
import { createLocalFacilitator, createRemoteFacilitator } from './payments/facilitator.ts';
import type { PaymentOffer } from './payments/x402-rail.ts';
import { listen } from './server.ts';
import { evmSettlementChain } from './payments/settlement-chain.ts';
import type { SolanaSettlementChain } from './payments/solana-settlement-chain.ts';
import type { Store } from './store/types.ts';
import { startIndex } from './index/start.ts';
import type { IndexService } from './index/service.ts';
import { createChainProviders, type ChainProviders, type ChainSettings, type EvmChainName, type EvmChainSettings } from './providers/chains.ts';

export interface RunningService {
  /** Public base URL (PUBLIC_BASE_URL, or the listening address). */
  url: string;
  /** Where this process actually listens. */
  localUrl: string;
  percall: Percall;
  /** Present in dev mode. */
  dev?: DevInfo;
  /** Present in dev mode with the Solana leg. */
  solanaDev?: SolanaDevInfo;
  devChain?: DevChain;
  /** The block index, when this instance runs one (INDEX_CHAINS). */
  index?: IndexService;
  /** Graceful: stops accepting, lets in-flight calls settle, then closes the store and the chain. */
  stop(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  log: Logger;
  /** Tests add products; the default is the full catalogue. */
  products?: readonly Product[];
  /** Tests share one chain between services. */
  devChain?: DevChain;
  /** Tests share one Solana dev chain between services. */
  solanaDevChain?: SolanaDevChain;
  /** Tests wrap the facilitator (e.g. to simulate an outage). */
  wrapFacilitator?: (facilitator: FacilitatorClient) => FacilitatorClient;
  /** Dev mode: keep the chain in the data directory across restarts (npm start does). */
  persistChain?: boolean;
  /** Tests wrap the store (e.g. to take the database away and bring it back). */
  wrapStore?: (store: Store) => Store;
  /** Tests skew this process's clock (the gate and the reconciler read it). */
  clock?: () => Date;
  /** Tests start a fresh embedded store from a migrated template (see buildEmbeddedTemplate). */
  storeTemplate?: string;
  /** Tests hand over a fresh embedded store instead (one booted engine reused: test/helpers/store-pool.ts). */
  openStore?: () => Promise<Store>;
}

/** Starts the whole service: the dev chain and local facilitator in dev mode, the store, the HTTP listener. */
export async function startService(options: StartOptions): Promise<RunningService> {
  const { config, log } = options;
  await mkdir(config.dataDir, { recursive: true });
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    const pending = cleanups.splice(0).reverse();
    for (const fn of pending) await fn().catch((error) => log.warn({ err: describeError(error) }, 'cleanup failed'));
  };
  try {
    let devChain = config.mode === 'dev' ? options.devChain : undefined;
    let solanaChain: SolanaDevChain | undefined;
    const facilitators: FacilitatorClient[] = [];
    const offers: PaymentOffer[] = [];
    const evmOffer = (network: `eip155:${number}`, asset: Hex, name: string, version: string, payTo: string): PaymentOffer => ({
      family: 'evm',
      network,
      asset,
      assetName: name,
      assetVersion: version,
      payTo,
      maxTimeoutSeconds: config.paymentTimeoutSeconds,
      minimumAmount: config.minimumAmount.evm,
    });
    const solanaOffer = (network: string, mint: string, payTo: string): PaymentOffer => ({
      family: 'solana',
      network: network as Network,
      asset: mint,
      payTo,
      maxTimeoutSeconds: config.paymentTimeoutSeconds,
      minimumAmount: config.minimumAmount.solana,
    });
    if (config.mode === 'dev') {
      if (!devChain) {
        // The dev chain's code and contract artifacts are loaded in dev mode only (README, "Memory").
        const { devStatePath, startDevChain } = await import('./devchain/stack.ts');
        devChain = await startDevChain({
          log,
          rpcUrl: config.devRpcUrl,
          payTo: config.payTo,
          statePath: options.persistChain ? devStatePath(config.dataDir) : undefined,
        });
        const started = devChain;
        cleanups.push(() => started.stop());
      }
      facilitators.push(
        createLocalFacilitator({
          rpcUrl: devChain.rpcUrl,
          chainId: devChain.chainId,
          network: devChain.network,
          // Instances sharing one chain need a gas wallet each: nonces are managed per process.
          privateKey: config.facilitatorKey ?? devChain.facilitatorKey,
          receiptTimeoutMs: config.facilitatorTimeoutMs,
          // Concurrent `exact` settlements share one Multicall3 transaction (see SettlementBatcher).
          batchSettlements: true,
        }),
      );
      offers.push(evmOffer(devChain.network, devChain.usdc, devChain.usdcName, devChain.usdcVersion, devChain.payTo));
      // The Solana leg lives in this process; instances joining another's EVM chain leave it out.
      solanaChain = options.solanaDevChain ?? (config.solana.dev && !config.devRpcUrl ? await (await import('./devchain/solana.ts')).startSolanaDevChain({ log }) : undefined);
      if (solanaChain && !options.solanaDevChain) cleanups.push(solanaChain.stop);
      if (solanaChain) {
        const { createLocalSvmFacilitator } = await import('./payments/svm-facilitator.ts');
        facilitators.push(await createLocalSvmFacilitator({ rpcUrl: solanaChain.rpcUrl, network: solanaChain.network, feePayerSecretKey: solanaChain.feePayer.secretKey }));
        offers.push(solanaOffer(solanaChain.network, solanaChain.mint, solanaChain.payTo));
      }
    } else {
      // One remote facilitator settles every network it supports; the built-in one needs a key per family.
      if (config.facilitatorUrl) facilitators.push(createRemoteFacilitator(config.facilitatorUrl, config.facilitatorTimeoutMs));
      else {
        facilitators.push(
          createLocalFacilitator({
            rpcUrl: config.evmRpcUrl!,
            chainId: Number(config.evm.network.split(':')[1]),
            network: config.evm.network,
            privateKey: config.facilitatorKey!,
            pollingIntervalMs: 1000,
            receiptTimeoutMs: config.facilitatorTimeoutMs,
            batchSettlements: true,
          }),
        );
        if (config.solana.payTo && config.solana.rpcUrl && config.solana.feePayerKey) {
          // Solana's libraries are loaded only where Solana is configured (README, "Memory").
          const [{ getBase58Encoder }, { createLocalSvmFacilitator }] = await Promise.all([import('@solana/kit'), import('./payments/svm-facilitator.ts')]);
          const feePayerSecretKey = getBase58Encoder().encode(config.solana.feePayerKey) as Uint8Array;
          facilitators.push(await createLocalSvmFacilitator({ rpcUrl: config.solana.rpcUrl, network: config.solana.network, feePayerSecretKey }));
        }
      }
      offers.push(evmOffer(config.evm.network, config.evm.usdc, config.evm.usdcName, config.evm.usdcVersion, config.payTo!));
      if (config.solana.payTo) offers.push(solanaOffer(config.solana.network, config.solana.usdc, config.solana.payTo));
      else log.info('SOLANA_PAY_TO is not set: Solana is not offered');
    }
    const wrap = options.wrapFacilitator;
    const facilitator = wrap ? facilitators.map((f) => wrap(f)) : facilitators;
    const offer = offers[0]!;

    // Each store's engine is loaded only when it is the one configured (PGlite alone is tens of MB).
    const opened: Store = config.databaseUrl
      ? (await import('./store/postgres.ts')).openPostgresStore({ url: config.databaseUrl, poolSize: config.databasePoolSize, statementTimeoutMs: config.databaseStatementTimeoutMs })
      : options.openStore
        ? await options.openStore()
        : await (await import('./store/embedded.ts')).openEmbeddedStore(config.dataDir, { statementTimeoutMs: config.databaseStatementTimeoutMs, template: options.storeTemplate });
    cleanups.push(() => opened.close());
    const store = options.wrapStore ? options.wrapStore(opened) : opened;
    // An unreachable database does not stop the start: paid routes answer 503 until it is back.
    await store.ensureSchema().catch((error: unknown) => log.warn({ err: describeError(error) }, 'database unavailable at start'));
    const rpcUrl = devChain?.rpcUrl ?? config.evmRpcUrl;
    const settlementChain = rpcUrl ? evmSettlementChain(rpcUrl) : undefined;
    const solanaRpcUrl = solanaChain?.rpcUrl ?? config.solana.rpcUrl;
    const solanaNetwork = solanaChain?.network ?? config.solana.network;
    const solanaReader: SolanaSettlementChain | undefined = solanaRpcUrl ? (await import('./payments/solana-settlement-chain.ts')).solanaSettlementChain(solanaRpcUrl) : undefined;
    const chainSet = chainSettings(config, devChain, solanaChain, log);
    const chains = createChainProviders(chainSet);
    // The block index (INDEX_CHAINS; dev: the local chain from genesis) in its own process, started in the background.
    const index = startIndex(config, chainSet, store, log);
    if (index) cleanups.push(() => index.stop());
    if (config.mode === 'production') void checkChainIds(chains, log);
    const listener = await listen(config.port, config.host);
    const baseUrl = config.publicBaseUrl ?? listener.url;
    const devRoles = devChain ? (await import('./devchain/contracts.ts')).DEV_ROLES : undefined;
    const percall = await createPercall({
      chains,
      ...(index ? { index } : {}),
      config,
      log,
      store,
      facilitator,
      offers,
      products: options.products,
      baseUrl,
      listenUrl: listener.url,
      chainFor: (network) => (network === offer.network ? settlementChain : network === solanaNetwork ? solanaReader : undefined),
      mppSecretKey: config.mpp.secretKey ?? (config.mode === 'dev' ? await devMppSecret(config.dataDir) : undefined),
      batchAuthorizerKey: config.batch.authorizerKey ?? devRoles?.batchAuthorizer.privateKey,
      operatorPayerKey: config.operator.payerKey ?? devRoles?.operatorPayer.privateKey,
      clock: options.clock,
    });
    cleanups.push(() => percall.stop());
    // Runs first on stop: no new connections, in-flight paid calls finish (settle, ledger, response)
    // while the store, chain and background work they need are still up.
    cleanups.push(() => listener.close(config.shutdownGraceMs));
    listener.setHandler(percall.app.fetch);
    // A dev chain restarted from its saved state may lack the last second of transactions.
    if (devChain) await percall.reconciler.checkLedgerAgainstChain(devChain.network, 200).catch((error: unknown) => log.warn({ err: describeError(error) }, 'ledger check against the dev chain failed'));

    const solanaDev = solanaChain ? (await import('./devchain/solana.ts')).solanaDevInfo(solanaChain) : undefined;
    let dev: DevInfo | undefined;
    if (devChain) {
      dev = {
        baseUrl,
        network: devChain.network,
        chainId: devChain.chainId,
        rpcUrl: devChain.rpcUrl,
        asset: devChain.usdc,
        payTo: devChain.payTo,
        buyerAddress: devChain.buyer.address,
        buyerPrivateKey: devChain.buyer.privateKey,
      };
      await writeFile(join(config.dataDir, 'dev.json'), `${JSON.stringify(dev, null, 2)}\n`, { mode: 0o600 });
      if (solanaDev) await writeFile(join(config.dataDir, 'dev-solana.json'), `${JSON.stringify(solanaDev, null, 2)}\n`, { mode: 0o600 });
    }
    log.info({ url: baseUrl, mode: config.mode, network: offer.network, payTo: offer.payTo }, 'percall listening');
    return { url: baseUrl, localUrl: listener.url, percall, dev, devChain, ...(solanaDev ? { solanaDev } : {}), ...(index ? { index } : {}), stop: cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** Requests per second a local dev chain takes from this process (it has no plan to protect). */
const LOCAL_CHAIN_BUDGET = 10_000;

/**
 * The chains products read. Dev mode: `base` is the local anvil chain (its responses say
 * `network: eip155:31337`) and Solana the in-process VM; other EVM chains come from EVM_RPC_URLS.
 * Production: EVM_RPC_URLS, with `base` falling back to EVM_RPC_URL when EVM_NETWORK is Base; Solana
 * from SOLANA_RPC_URL.
 */
function chainSettings(config: Config, devChain: DevChain | undefined, solanaChain: SolanaDevChain | undefined, log: Logger): ChainSettings {
  const urls = { ...config.chains.evmRpcUrls };
  const evm: EvmChainSettings[] = [];
  if (devChain) {
    if (urls.base) log.warn('dev mode: EVM_RPC_URLS base=… is ignored, base is the local dev chain');
    delete urls.base;
    evm.push({ chain: 'base', urls: [devChain.rpcUrl], chainId: devChain.chainId, usdc: devChain.usdc, budgetPerSecond: LOCAL_CHAIN_BUDGET });
  } else if (!urls.base && config.evmRpcUrl && config.evm.network === BASE_MAINNET.network) {
    urls.base = [config.evmRpcUrl];
  }
  for (const [chain, list] of Object.entries(urls) as [EvmChainName, string[]][]) evm.push({ chain, urls: list });
  const solana = solanaChain
    ? { url: solanaChain.rpcUrl, network: solanaChain.network as `solana:${string}`, usdcMint: solanaChain.mint, budgetPerSecond: LOCAL_CHAIN_BUDGET }
    : config.solana.rpcUrl
      ? { url: config.solana.rpcUrl, network: config.solana.network, usdcMint: config.solana.usdc }
      : undefined;
  return { evm, ...(solana ? { solana } : {}), budgetPerSecond: config.chains.budgetPerSecond, timeoutMs: config.chains.timeoutMs };
}

/** Warns (without the URL) when an EVM_RPC_URLS entry answers for another chain than its name. */
async function checkChainIds(chains: ChainProviders, log: Logger): Promise<void> {
  for (const name of chains.evmChains) {
    const provider = chains.evm(name)!;
    try {
      const actual = await provider.client.getChainId();
      if (actual !== provider.chainId) log.warn({ chain: name, expected: provider.chainId, actual }, 'EVM_RPC_URLS: an endpoint answers for another chain than its name');
    } catch (error) {
      log.warn({ chain: name, err: describeError(error) }, 'EVM_RPC_URLS: chain not reachable at start');
    }
  }
}

/** Dev mode's MPP challenge key: made once per data directory, so restarts keep open challenges valid. */
async function devMppSecret(dataDir: string): Promise<string> {
  const path = join(dataDir, 'mpp-secret');
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    const secret = randomBytes(32).toString('base64url');
    await writeFile(path, `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch(() => undefined);
    return (await readFile(path, 'utf8')).trim();
  }
}
