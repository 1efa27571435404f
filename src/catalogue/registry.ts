/**
 * The registry: every product of the service, filed by domain, in catalogue order (the order of
 * routes, tools and every discovery document). Adding a product is its folder under
 * src/products/<domain>/ plus one line here; a planned one is an entry in its domain's planned.ts
 * plus one line here.
 */
import { domain, type Domain, type Product } from '../products/kit/index.ts';
import { time } from '../products/utility/time/index.ts';
import { echo } from '../products/utility/echo/index.ts';
import { runPython } from '../products/utility/run-python/index.ts';
import { webExtract } from '../products/web/web-extract/index.ts';
import { browserEvidence } from '../products/web/browser-evidence/index.ts';
import { batchExtract } from '../products/web/batch-extract/index.ts';
import { batchUrlJson } from '../products/web/batch-url-json/index.ts';
import { x401BatchExtract } from '../products/web/x401-batch-extract/index.ts';
import { purchaseWebExtractionSample } from '../products/web/purchase-web-extraction-sample/index.ts';
import { purchaseWebsiteDecisionPacket } from '../products/web/purchase-website-decision-packet/index.ts';
import { webSearch } from '../products/web/web-search/index.ts';
import { tweetsSearch } from '../products/web/tweets-search/index.ts';
import { fetchX402Content } from '../products/web/fetch-x402-content/index.ts';
import { baseBlockNumber } from '../products/chain/base-block-number/index.ts';
import { baseGasPrice } from '../products/chain/base-gas-price/index.ts';
import { baseTxStatus } from '../products/chain/base-tx-status/index.ts';
import { baseTransferSearchRpc } from '../products/chain/base-transfer-search-rpc/index.ts';
import { baseUsdcBalance } from '../products/chain/base-usdc-balance/index.ts';
import { baseUsdcTransferCheck } from '../products/chain/base-usdc-transfer-check/index.ts';
import { proxyImplementation } from '../products/chain/proxy-implementation/index.ts';
import { solanaOpsContext } from '../products/chain/solana-ops-context/index.ts';
import { solanaPriorityFee } from '../products/chain/solana-priority-fee/index.ts';
import { baseTransferSearch } from '../products/chain/base-transfer-search/index.ts';
import { baseWalletProfile } from '../products/chain/base-wallet-profile/index.ts';
import { walletAnalyze } from '../products/chain/wallet-analyze/index.ts';
import { walletSpy } from '../products/chain/wallet-spy/index.ts';
import { tokenMetrics } from '../products/chain/token-metrics/index.ts';
import { tokenFlowActivity } from '../products/chain/token-flow-activity/index.ts';
import { analyticsQuery } from '../products/chain/analytics-query/index.ts';
import { bazaarPulse } from '../products/bazaar/bazaar-pulse/index.ts';
import { listingTriage } from '../products/bazaar/listing-triage/index.ts';
import { bazaarCategoryHeat } from '../products/bazaar/bazaar-category-heat/index.ts';
import { bazaarCategoryHeatFeed } from '../products/bazaar/bazaar-category-heat-feed/index.ts';
import { bazaarDelta } from '../products/bazaar/bazaar-delta/index.ts';
import { bazaarListingLint } from '../products/bazaar/bazaar-listing-lint/index.ts';
import { bazaarMarketReport } from '../products/bazaar/bazaar-market-report/index.ts';
import { bazaarNewListings } from '../products/bazaar/bazaar-new-listings/index.ts';
import { bazaarPriceStats } from '../products/bazaar/bazaar-price-stats/index.ts';
import { bazaarSellerRank } from '../products/bazaar/bazaar-seller-rank/index.ts';
import { bazaarTrending } from '../products/bazaar/bazaar-trending/index.ts';
import { repriceRegret } from '../products/bazaar/reprice-regret/index.ts';
import { ghostBidAudit } from '../products/bazaar/ghost-bid-audit/index.ts';
import { sentiment } from '../products/text/sentiment/index.ts';
import { classifyText } from '../products/text/classify-text/index.ts';
import { extractJson } from '../products/text/extract-json/index.ts';
import { extractKeywords } from '../products/text/extract-keywords/index.ts';
import { rewriteText } from '../products/text/rewrite-text/index.ts';
import { summarizeText } from '../products/text/summarize-text/index.ts';
import { leiResolve } from '../products/research/lei-resolve/index.ts';
import { answerWithSources } from '../products/research/answer-with-sources/index.ts';
import { researchAnswer } from '../products/research/research-answer/index.ts';
import { awardFlightSearch } from '../products/research/award-flight-search/index.ts';
import { companyResearch } from '../products/research/company-research/index.ts';
import { inference } from '../products/inference/inference/index.ts';
import { chatCompletion } from '../products/inference/chat-completion/index.ts';
import { agentRoute } from '../products/agent/agent-route/index.ts';
import { routeTask } from '../products/agent/route-task/index.ts';
import { mppRoute } from '../products/agent/mpp-route/index.ts';
import { agentReadinessAudit } from '../products/agent/agent-readiness-audit/index.ts';
import { agentPreflightBundle } from '../products/agent/agent-preflight-bundle/index.ts';
import { agentReturnContext } from '../products/agent/agent-return-context/index.ts';
import { endpointTaskEvaluation } from '../products/payments/endpoint-task-evaluation/index.ts';
import { x402EndpointVerify } from '../products/payments/x402-endpoint-verify/index.ts';
import { settlementVerify } from '../products/payments/settlement-verify/index.ts';
import { b402Preflight } from '../products/payments/b402-preflight/index.ts';
import { mppAdmissionGate } from '../products/payments/mpp-admission-gate/index.ts';
import { x402FacilitatorHealth } from '../products/payments/x402-facilitator-health/index.ts';
import { x402ReceiptLookup } from '../products/payments/x402-receipt-lookup/index.ts';
import { payerProfile } from '../products/payments/payer-profile/index.ts';
import { compilePaymentPolicy } from '../products/payments/compile-payment-policy/index.ts';
import * as payments from '../products/payments/planned.ts';
import { serviceGateway } from '../products/payments/service-gateway/index.ts';
import { peopleRecordNormalize } from '../products/people/people-record-normalize/index.ts';
import { peopleSearch } from '../products/people/people-search/index.ts';
import { profileSearch } from '../products/people/profile-search/index.ts';
import { peopleEnrich } from '../products/people/people-enrich/index.ts';
import { cryptoPrice } from '../products/market/crypto-price/index.ts';
import { usEquitySnapshot } from '../products/market/us-equity-snapshot/index.ts';
import { tradingSignals } from '../products/market/trading-signals/index.ts';
import { marketIntel } from '../products/market/market-intel/index.ts';

export const DOMAINS: readonly Domain[] = [
  domain('utility', [
    time,
    echo,
    runPython,
  ]),
  domain('web', [
    webExtract,
    webSearch,
    browserEvidence,
    batchExtract,
    batchUrlJson,
    x401BatchExtract,
    fetchX402Content,
    purchaseWebExtractionSample,
    purchaseWebsiteDecisionPacket,
    tweetsSearch,
  ]),
  domain('chain', [
    analyticsQuery,
    tokenMetrics,
    walletAnalyze,
    walletSpy,
    baseBlockNumber,
    baseGasPrice,
    baseTxStatus,
    baseTransferSearch,
    baseTransferSearchRpc,
    baseUsdcBalance,
    baseUsdcTransferCheck,
    baseWalletProfile,
    tokenFlowActivity,
    proxyImplementation,
    solanaOpsContext,
    solanaPriorityFee,
  ]),
  domain('bazaar', [
    bazaarPulse,
    listingTriage,
    bazaarCategoryHeat,
    bazaarCategoryHeatFeed,
    bazaarDelta,
    bazaarListingLint,
    bazaarMarketReport,
    bazaarNewListings,
    bazaarPriceStats,
    bazaarSellerRank,
    bazaarTrending,
    repriceRegret,
    ghostBidAudit,
  ]),
  domain('text', [
    sentiment,
    classifyText,
    extractJson,
    extractKeywords,
    rewriteText,
    summarizeText,
  ]),
  domain('research', [
    companyResearch,
    answerWithSources,
    researchAnswer,
    leiResolve,
    awardFlightSearch,
  ]),
  domain('inference', [
    inference,
    chatCompletion,
  ]),
  domain('agent', [
    agentRoute,
    routeTask,
    mppRoute,
    agentPreflightBundle,
    agentReturnContext,
    agentReadinessAudit,
  ]),
  domain('payments', [
    endpointTaskEvaluation,
    x402EndpointVerify,
    x402FacilitatorHealth,
    settlementVerify,
    x402ReceiptLookup,
    b402Preflight,
    compilePaymentPolicy,
    payments.prepaidAccessToken,
    mppAdmissionGate,
    payerProfile,
    serviceGateway,
  ]),
  domain('people', [
    peopleRecordNormalize,
    peopleSearch,
    profileSearch,
    peopleEnrich,
  ]),
  domain('market', [
    cryptoPrice,
    tradingSignals,
    marketIntel,
    usEquitySnapshot,
  ]),
];

/** Every product of the service, the single source of truth for routes, tools and discovery documents. */
export const ALL_PRODUCTS: readonly Product[] = DOMAINS.flatMap((d) => d.products);
