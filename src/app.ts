import { Hono } from 'hono';
import type { FacilitatorClient } from '@x402/core/server';
import { ALL_PRODUCTS } from './catalogue/all.ts';
import { Catalogue, withUpstreams } from './catalogue/index.ts';
import { ChatUpstream } from './providers/llm.ts';
import { browserAvailable } from './providers/browser.ts';
import type { ChainProviders } from './providers/chains.ts';
import { createDataProviders } from './providers/data.ts';
import type { IndexService } from './index/service.ts';
import { registerAnalyticsRoutes } from './http/analytics-routes.ts';
import type { UpstreamProvider } from './products/kit/index.ts';
import { INFERENCE_MODELS } from './catalogue/models.ts';
import type { AvailableProduct, Product } from './catalogue/types.ts';
import type { Hex } from 'viem';
import { USDC_DECIMALS, usdToAtomic } from './money.ts';
import type { MppRail } from './payments/mpp/index.ts';
import type { Config } from './config.ts';
import type { DiscoveryContext } from './discovery/context.ts';
import { boundedBodies, largerBodies } from './http/body-limit.ts';
import { PythonSandbox } from './sandbox/python-sandbox.ts';
import { registerRunPythonDoors } from './http/run-python-routes.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { startPurging } from './store/housekeeping.ts';
import { hostGuard } from './http/host-guard.ts';
import { requestIds } from './http/request-id.ts';
import { registerFreeRoutes } from './http/free-routes.ts';
import { discoveryItems, type DiscoveryListItem } from './discovery/bazaar-list.ts';
import { BazaarSnapshotService } from './bazaar/service.ts';
import { registerBazaarRoutes } from './http/bazaar-routes.ts';
import { registerPayerProfileRoutes } from './http/payer-profile-routes.ts';
import { registerResearchAnswerRoutes } from './http/research-answer-routes.ts';
import { storeMarket } from './bazaar/market.ts';
import { registerOrderRoutes } from './http/order-routes.ts';
import { registerOpenAiDoor } from './http/openai-door.ts';
import { registerPaidRoutes } from './http/paid-routes.ts';
import { registerMcp } from './mcp/server.ts';
import { KeyRing } from './identity/keys.ts';
import { identityUrls, registerIdentity } from './identity/routes.ts';
import { TokenService } from './identity/tokens.ts';
import { ProofVerifier } from './identity/proof-request.ts';
import { problemResponse, problems } from './http/problem.ts';
import { describeError, type Logger } from './log.ts';
import { endpointKey, PaymentGate } from './payments/gate.ts';
import { Checkout } from './checkout/checkout.ts';
import { ProductRunner } from './products/runner.ts';
import { FreeTierDoor } from './payments/free-tier.ts';
import { Reconciler, type ChainReader } from './payments/reconciler.ts';
import { X402Rail, type PaymentOffer } from './payments/x402-rail.ts';
import { BatchClaims } from './payments/batch/claims.ts';
import { createBatchScheme } from './payments/batch/scheme.ts';
import { Telemetry } from './telemetry/counters.ts';
import { operatorUpstreams, operatorWalletFor } from './payments/operator/index.ts';
import { registerObservatory } from './http/observatory-routes.ts';
import { telemetryGateHook } from './telemetry/gate-hook.ts';
import { toolUsageHook } from './telemetry/tool-usage.ts';
import type { Store } from './store/types.ts';
import { PACKAGE_VERSION } from './version.ts';

export interface PercallOptions {
  config: Config;
  log: Logger;
  store: Store;
  /** Facilitators of the offered networks (one remote one may serve them all). */
  facilitator: FacilitatorClient | FacilitatorClient[];
  /** Ways to pay; the dev stack supplies its chain's, production the configured mainnet ones. */
  offers: PaymentOffer[];
  /** The catalogue; defaults to every declared product. Tests add products with strict schemas. */
  products?: readonly Product[];
  /** Public base URL; the request's origin when unset. */
  baseUrl?: string;
  /** Where this process listens (the dev gateway sells this instance's own routes there). */
  listenUrl?: string;
  /** HMAC key of MPP challenge ids; MPP is offered (on the EVM offer) only with it. */
  mppSecretKey?: string;
  /** Read access to a network's chain, for reconciling settlements of unknown outcome. */
  chainFor?: (network: string) => ChainReader | undefined;
  /** This process's clock (tests skew it); the gate and the reconciler read it. */
  clock?: () => Date;
  /**
   * Key of the batch-settlement receiver authorizer: channels are offered on the EVM offer only with
   * it (BATCH_AUTHORIZER_KEY; the dev stack supplies a key of the public test mnemonic).
   */
  batchAuthorizerKey?: Hex;
  /** The chains products read (dev: the local chains; production: EVM_RPC_URLS, SOLANA_RPC_URL). */
  chains?: ChainProviders;
  /** The block index (src/index/), when INDEX_CHAINS names chains: analytics-query is on sale with it. */
  index?: IndexService;
  /** Key of the operator's wallet paying upstream x402 sellers (OPERATOR_PAYER_PRIVATE_KEY; the dev stack supplies a funded dev account). */
  operatorPayerKey?: Hex;
  /** `false`: no scheduled Bazaar snapshots (tests take them with `percall.bazaar.runOnce()`). */
  bazaarSchedule?: boolean;
}

export interface Percall {
  app: Hono;
  catalogue: Catalogue;
  rail: X402Rail;
  gate: PaymentGate;
  store: Store;
  telemetry: Telemetry;
  reconciler: Reconciler;
  keys: KeyRing;
  /** This process's name in the shared store (owner of its reservations). */
  instanceId: string;
  /** batch-settlement claims, when channels are offered. */
  batchClaims?: BatchClaims;
  /** Bazaar snapshots, when BAZAAR_DISCOVERY_URLS names sources. */
  bazaar?: BazaarSnapshotService;
  /** run_python's sandbox, where it can run here. */
  python?: PythonSandbox;
  /** Stops background work and flushes telemetry. The store is closed by whoever opened it. */
  stop(): Promise<void>;
}

/** Composition root: catalogue, payment rail and gate, HTTP routes. Starting a listener is separate. */
export async function createPercall(options: PercallOptions): Promise<Percall> {
  const { config, log, store } = options;
  const llm = config.inference ? new ChatUpstream(config.inference) : undefined;
  const data = createDataProviders(config.dataProviders);
  // run_python is on sale only where a sandbox really starts (bubblewrap, user namespaces, the interpreter).
  const sandbox = await PythonSandbox.start(config.runPython);
  const python = 'sandbox' in sandbox ? sandbox.sandbox : undefined;
  if (!python) log.info({ reason: 'reason' in sandbox ? sandbox.reason : undefined }, 'run_python is not on sale here');
  const evmOffer = options.offers.find((o) => o.family === 'evm');
  const operatorChain = evmOffer ? options.chainFor?.(evmOffer.network) : undefined;
  const operator = operatorWalletFor({
    key: options.operatorPayerKey,
    settings: config.operator,
    ...(options.listenUrl ? { listenUrl: options.listenUrl } : {}),
    offers: options.offers,
    ledger: store.operatorLedger(),
    fetchPolicy: config.fetchPolicy,
    ...(operatorChain?.family === 'evm' ? { chain: operatorChain } : {}),
    log,
    onPaid: (product, amount) => telemetry.upstream(product, amount),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const catalogue = new Catalogue(withUpstreams(options.products ?? ALL_PRODUCTS, new Set([...(llm ? (['llm'] as const) : []), ...(browserAvailable() ? (['browser'] as const) : []), ...chainUpstreams(options.chains), ...(options.index ? (['index'] as const) : []), ...(config.bazaar.sources.length > 0 ? (['bazaar'] as const) : []), ...data.kinds, ...(python ? (['python'] as const) : []), ...operatorUpstreams(operator)]), options.chains?.evmChains, options.index ? [...options.index.chains().keys()] : []));
  const batch =
    evmOffer && options.batchAuthorizerKey
      ? {
          network: evmOffer.network,
          scheme: createBatchScheme(evmOffer.payTo, store.channelStorage(), { authorizerKey: options.batchAuthorizerKey, withdrawDelaySeconds: config.batch.withdrawDelaySeconds }),
        }
      : undefined;
  const rail = new X402Rail(options.facilitator, options.offers, config.serviceName, batch);
  await rail.start(catalogue.products, (error, delayMs) =>
    log.warn({ err: describeError(error), retryInMs: delayMs }, 'payment facilitator unavailable; paid routes answer 503 until it is'),
  );
  // Filled with the MPP rail's networks once it exists (below).
  const paymentNetworks = new Set<string>(options.offers.map((o) => o.network));
  const telemetry = new Telemetry(store, log, { selfTestWallets: config.selfTestWallets, networks: paymentNetworks, enabled: config.telemetryEnabled });
  telemetry.start(config.telemetryFlushMs);
  const reconciler = new Reconciler(store, options.chainFor ?? (() => undefined), log, {
    instanceId: config.instanceId,
    ownerTimeoutMs: config.ownerTimeoutMs,
    // Longer than any call can take: facilitator timeouts plus the product's own limit.
    inFlightTimeoutMs: Math.max(10 * 60_000, config.ownerTimeoutMs),
    // The gate gives a settlement twice the facilitator timeout, then parks it; a minute more for its writes.
    settlingTimeoutMs: 2 * config.facilitatorTimeoutMs + 60_000,
    redeemWindowMs: config.redeemWindowMs,
    clock: options.clock,
  });
  // The same tick is the heartbeat: it must come well within the owner timeout.
  await reconciler.start(Math.min(config.reconcileIntervalMs, config.ownerTimeoutMs / 3));
  const runner = new ProductRunner(catalogue, config.fetchPolicy, llm, undefined, config.browserTimeLimits, options.chains, options.index, data, storeMarket(store.bazaarSnapshots()), {
    verifications: store.settlementVerifications(),
    networks: options.offers.map((o) => o.network),
    ...(config.facilitatorUrl ? { facilitatorUrl: config.facilitatorUrl } : {}),
  }, python, operator);
  const gate = new PaymentGate({
    runner,
    rail,
    store,
    log,
    hooks: [telemetryGateHook(telemetry), toolUsageHook(store.toolUsage(), { selfTestWallets: config.selfTestWallets, log, ...(options.clock ? { clock: options.clock } : {}) })],
    reconciler,
    instanceId: config.instanceId,
    redeemWindowMs: config.redeemWindowMs,
    facilitatorTimeoutMs: config.facilitatorTimeoutMs,
    clock: options.clock,
  });
  reconciler.beforePass(() => gate.flushLedger());
  // Upstream payments of unknown outcome are ended from the chain once their authorization lapsed.
  if (operator) reconciler.beforePass(async () => void (await operator.resolveExpired()));

  const app = new Hono();
  app.use(requestIds());
  app.use(hostGuard({ config, listenUrl: options.baseUrl, log })); // DNS rebinding: Host and Origin, before anything is read
  app.use(boundedBodies(config.maxBodyBytes, largerBodies(catalogue.available(), config.maxBodyBytes)));
  const baseUrl = options.baseUrl ?? config.publicBaseUrl ?? `http://${config.host}:${config.port}`;
  const { mpp, mppAccepts } = await createMppRail(options, store, baseUrl);
  for (const network of mpp?.networks ?? []) paymentNetworks.add(network);
  const discovery: DiscoveryContext = {
    baseUrl,
    siteUrl: config.siteUrl ?? baseUrl,
    serviceName: config.serviceName,
    version: PACKAGE_VERSION,
    catalogue,
    offers: options.offers,
    accepts: (product, surface) => rail.requirementsFor(product, surface),
    excluded: (product, surface) => rail.excludedFor(product, surface),
    bazaarExtension: (product, surface) => rail.paymentRequired(product, surface, '').extensions?.bazaar as Record<string, unknown> | undefined,
    models: INFERENCE_MODELS,
    startedAt: new Date(),
    ...(options.index ? { savedQueries: () => options.index!.savedQueriesSnapshot() } : {}),
    ...(mpp ? { mpp: { methods: [...mpp.methods], accepts: (product, surface) => surface === 'http' && mppAccepts(product) } } : {}),
  };
  registerFreeRoutes(app, discovery);
  // Bazaar snapshots of the configured discovery lists (dev: this instance's own list, read in process).
  let ownList: DiscoveryListItem[] | undefined;
  const bazaar =
    config.bazaar.sources.length > 0
      ? new BazaarSnapshotService({ store, settings: config.bazaar, fetchPolicy: config.fetchPolicy, selfItems: () => (ownList ??= discoveryItems(discovery)), log, instanceId: config.instanceId, ...(options.clock ? { clock: options.clock } : {}) })
      : undefined;
  const keys = new KeyRing(store, config.keyRotationMs);
  // The first instance to start creates the signing key; an unreachable store delays it to first use.
  await keys.ensureKey().catch((error: unknown) => log.warn({ err: describeError(error) }, 'identity keys not ready'));
  const tokens = new TokenService(keys, store, { issuer: discovery.siteUrl, tokenEndpoint: identityUrls(discovery.siteUrl).token, resource: baseUrl });
  const limiter = new RateLimiter(store, config.rateLimits, config.trustedProxyHeader, log);
  const stopPurging = startPurging(store, config.purgeIntervalMs, log);
  registerIdentity(app, { store, keys, tokens, log, limiter, siteUrl: discovery.siteUrl, baseUrl });
  const proofs = new ProofVerifier(store, tokens, new URL(baseUrl).host);
  const freeTier = new FreeTierDoor(store, runner, options.offers.map((o) => o.network));
  registerObservatory(app, {
    store,
    telemetry,
    report: {
      serviceName: config.serviceName,
      wallet: options.offers[0]?.payTo ?? '',
      network: options.offers[0]?.network ?? '',
      networks: paymentNetworks,
      operatorProducts: catalogue.available().filter((p) => p.requires?.some((r) => r === 'operator' || r === 'gateway')).map((p) => ({ product: p.id, endpoints: (['http', 'mcp'] as const).filter((s) => p[s]).map((s) => endpointKey(p, s)) })),
    },
    reportPath: config.reportPath,
    adminToken: config.adminToken,
    batchChannels: batch !== undefined,
    dataProviders: () => data.stats(),
  });
  // One paid-call flow; the routes, order doors, MPP door and MCP tools only encode its answers.
  const checkout = new Checkout({ catalogue, rail, gate, store, freeTier, proofs, limits: limiter, telemetry, log, maxBodyBytes: config.maxBodyBytes, mpp, mppAccepts, precheck: (p, input) => runner.precheck(p, input), dynamicPrice: (p, input) => runner.dynamicPrice(p, input) });
  const publicBaseUrl = options.baseUrl ?? config.publicBaseUrl;
  registerMcp(app, { catalogue, checkout, gate, limiter, serviceName: config.serviceName, publicBaseUrl, trustedProxyHeader: config.trustedProxyHeader });
  const paidRouteDeps = { catalogue, checkout, gate, mpp, limiter, trustedProxyHeader: config.trustedProxyHeader, maxBodyBytes: config.maxBodyBytes, publicBaseUrl };
  registerPaidRoutes(app, paidRouteDeps);
  registerOrderRoutes(app, paidRouteDeps);
  registerOpenAiDoor(app, { ...paidRouteDeps, models: INFERENCE_MODELS });
  if (options.index) registerAnalyticsRoutes(app, { index: options.index, limiter, adminToken: config.adminToken });
  const runPythonOnSale = python && catalogue.available().some((p) => p.id === 'run-python');
  registerRunPythonDoors(app, runPythonOnSale ? { python, limiter } : { unavailable: 'reason' in sandbox ? sandbox.reason : 'not on sale here', limiter });
  registerPayerProfileRoutes(app, catalogue);
  registerResearchAnswerRoutes(app, catalogue, llm !== undefined);
  registerBazaarRoutes(app, { catalogue, ...(bazaar ? { snapshots: bazaar } : {}), ...(config.adminToken ? { adminToken: config.adminToken } : {}) });

  app.notFound((c) => {
    // A known path asked with a method it does not serve is a 405, not a 404.
    const allowed = [...new Set(app.routes.filter((r) => r.path === c.req.path && r.method !== 'ALL').map((r) => r.method))];
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      return problemResponse(problems.methodNotAllowed(c.req.method, allowed), { allow: allowed.join(', ') });
    }
    return problemResponse(problems.notFound(c.req.path));
  });
  app.onError((error, c) => {
    log.error({ path: c.req.path, err: describeError(error) }, 'unhandled error');
    return problemResponse(problems.internal());
  });
  const batchClaims =
    batch && evmOffer
      ? new BatchClaims({
          scheme: batch.scheme,
          facilitator: [options.facilitator].flat()[0]!,
          network: batch.network,
          token: evmOffer.asset as Hex,
          store,
          log,
          instanceId: config.instanceId,
          intervalMs: config.batch.claimIntervalMs,
          refundIdleSeconds: config.batch.refundIdleSeconds,
        })
      : undefined;
  batchClaims?.start();
  if (options.bazaarSchedule !== false) bazaar?.start();
  const stop = async () => {
    // Vouchers accepted so far are claimed before the process goes (they would be next round anyway).
    await batchClaims?.stop(true);
    await bazaar?.stop();
    await runner.browser.close();
    python?.close();
    rail.stop();
    reconciler.stop();
    stopPurging();
    await telemetry.stop();
  };
  return { app, catalogue, rail, gate, store, telemetry, reconciler, keys, instanceId: config.instanceId, ...(batchClaims ? { batchClaims } : {}), ...(bazaar ? { bazaar } : {}), ...(python ? { python } : {}), stop };
}

/** The chain upstreams a set of providers gives: `evm` for any EVM chain, `evm:base`, `solana`. */
function chainUpstreams(chains: ChainProviders | undefined): UpstreamProvider[] {
  if (!chains) return [];
  return [...(chains.evmChains.length > 0 ? (['evm'] as const) : []), ...(chains.evm('base') ? (['evm:base'] as const) : []), ...(chains.solana ? (['solana'] as const) : [])];
}

/**
 * MPP settles EIP-3009 USDC on the EVM offer through the same facilitator, so it exists only with an
 * EVM offer and a secret, and a product takes it on HTTP when declared so and priced at or above the
 * EVM minimum. Challenge ids are single use through the shared store's nonce table.
 */
async function createMppRail(options: PercallOptions, store: Store, baseUrl: string): Promise<{ mpp?: MppRail; mppAccepts(product: AvailableProduct): boolean }> {
  const evm = options.offers.find((o) => o.family === 'evm');
  if (!options.mppSecretKey || !evm || !evm.assetName || !evm.assetVersion) return { mppAccepts: () => false };
  // Loaded only when configured: mppx is about 6 MB an instance without MPP does not need (README, "Memory").
  const { MppRail } = await import('./payments/mpp/index.ts');
  const mpp = await MppRail.create({
    secretKey: options.mppSecretKey,
    realm: options.config.mpp.realm ?? new URL(baseUrl).host,
    network: evm.network,
    asset: evm.asset as Hex,
    assetName: evm.assetName,
    assetVersion: evm.assetVersion,
    decimals: USDC_DECIMALS,
    payTo: evm.payTo as Hex,
    challenges: { consume: (id) => store.useNonce(`mpp-challenge:${id}`) },
    expiresInSeconds: Math.min(300, evm.maxTimeoutSeconds),
    maxTimeoutSeconds: evm.maxTimeoutSeconds,
    ...(options.config.mpp.tempo ? { tempo: options.config.mpp.tempo } : {}),
  });
  const mppAccepts = (product: AvailableProduct) => product.rails.mpp && product.http !== undefined && usdToAtomic(product.http.price) >= evm.minimumAmount;
  return { mpp, mppAccepts };
}
