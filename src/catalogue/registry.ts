/**
 * The registry: every product of the service, filed by domain, in catalogue order (the order of
 * routes, tools and every discovery document). Adding a product is its folder under
 * src/products/<domain>/ plus one line here; a planned one is an entry in its domain's planned.ts
 * plus one line here.
 */
import { domain, type Domain, type Product } from '../products/kit/index.ts';
import { time } from '../products/utility/time/index.ts';
import { echo } from '../products/utility/echo/index.ts';
import * as utility from '../products/utility/planned.ts';
import { webExtract } from '../products/web/web-extract/index.ts';
import { browserEvidence } from '../products/web/browser-evidence/index.ts';
import { batchExtract } from '../products/web/batch-extract/index.ts';
import { batchUrlJson } from '../products/web/batch-url-json/index.ts';
import { x401BatchExtract } from '../products/web/x401-batch-extract/index.ts';
import { purchaseWebExtractionSample } from '../products/web/purchase-web-extraction-sample/index.ts';
import { purchaseWebsiteDecisionPacket } from '../products/web/purchase-website-decision-packet/index.ts';
import * as web from '../products/web/planned.ts';
import { baseBlockNumber } from '../products/chain/base-block-number/index.ts';
import { baseGasPrice } from '../products/chain/base-gas-price/index.ts';
import { baseTxStatus } from '../products/chain/base-tx-status/index.ts';
import { baseTransferSearchRpc } from '../products/chain/base-transfer-search-rpc/index.ts';
import { baseUsdcBalance } from '../products/chain/base-usdc-balance/index.ts';
import { baseUsdcTransferCheck } from '../products/chain/base-usdc-transfer-check/index.ts';
import { proxyImplementation } from '../products/chain/proxy-implementation/index.ts';
import { solanaOpsContext } from '../products/chain/solana-ops-context/index.ts';
import { solanaPriorityFee } from '../products/chain/solana-priority-fee/index.ts';
import * as chain from '../products/chain/planned.ts';
import { analyticsQuery } from '../products/chain/analytics-query/index.ts';
import * as bazaar from '../products/bazaar/planned.ts';
import * as text from '../products/text/planned.ts';
import * as research from '../products/research/planned.ts';
import { inference } from '../products/inference/inference/index.ts';
import { chatCompletion } from '../products/inference/chat-completion/index.ts';
import { agentRoute } from '../products/agent/agent-route/index.ts';
import { routeTask } from '../products/agent/route-task/index.ts';
import { mppRoute } from '../products/agent/mpp-route/index.ts';
import { agentReadinessAudit } from '../products/agent/agent-readiness-audit/index.ts';
import * as agent from '../products/agent/planned.ts';
import { endpointTaskEvaluation } from '../products/payments/endpoint-task-evaluation/index.ts';
import { x402EndpointVerify } from '../products/payments/x402-endpoint-verify/index.ts';
import * as payments from '../products/payments/planned.ts';
import * as people from '../products/people/planned.ts';
import * as market from '../products/market/planned.ts';

export const DOMAINS: readonly Domain[] = [
  domain('utility', [
    time,
    echo,
    utility.runPython,
  ]),
  domain('web', [
    webExtract,
    web.webSearch,
    browserEvidence,
    batchExtract,
    batchUrlJson,
    x401BatchExtract,
    web.fetchX402Content,
    purchaseWebExtractionSample,
    purchaseWebsiteDecisionPacket,
    web.tweetsSearch,
  ]),
  domain('chain', [
    analyticsQuery,
    chain.tokenMetrics,
    chain.walletAnalyze,
    chain.walletSpy,
    baseBlockNumber,
    baseGasPrice,
    baseTxStatus,
    chain.baseTransferSearch,
    baseTransferSearchRpc,
    baseUsdcBalance,
    baseUsdcTransferCheck,
    chain.baseWalletProfile,
    chain.tokenFlowActivity,
    proxyImplementation,
    solanaOpsContext,
    solanaPriorityFee,
  ]),
  domain('bazaar', [
    bazaar.bazaarPulse,
    bazaar.listingTriage,
    bazaar.bazaarCategoryHeat,
    bazaar.bazaarCategoryHeatFeed,
    bazaar.bazaarDelta,
    bazaar.bazaarListingLint,
    bazaar.bazaarMarketReport,
    bazaar.bazaarNewListings,
    bazaar.bazaarPriceStats,
    bazaar.bazaarSellerRank,
    bazaar.bazaarTrending,
    bazaar.repriceRegret,
    bazaar.ghostBidAudit,
  ]),
  domain('text', [
    text.sentiment,
    text.classifyText,
    text.extractJson,
    text.extractKeywords,
    text.rewriteText,
    text.summarizeText,
  ]),
  domain('research', [
    research.companyResearch,
    research.answerWithSources,
    research.researchAnswer,
    research.leiResolve,
    research.awardFlightSearch,
  ]),
  domain('inference', [
    inference,
    chatCompletion,
  ]),
  domain('agent', [
    agentRoute,
    routeTask,
    mppRoute,
    agent.agentPreflightBundle,
    agent.agentReturnContext,
    agentReadinessAudit,
  ]),
  domain('payments', [
    endpointTaskEvaluation,
    x402EndpointVerify,
    payments.x402FacilitatorHealth,
    payments.settlementVerify,
    payments.x402ReceiptLookup,
    payments.b402Preflight,
    payments.compilePaymentPolicy,
    payments.prepaidAccessToken,
    payments.mppAdmissionGate,
    payments.payerProfile,
    payments.serviceGateway,
  ]),
  domain('people', [
    people.peopleRecordNormalize,
    people.peopleSearch,
    people.profileSearch,
    people.peopleEnrich,
  ]),
  domain('market', [
    market.cryptoPrice,
    market.tradingSignals,
    market.marketIntel,
    market.usEquitySnapshot,
  ]),
];

/** Every product of the service, the single source of truth for routes, tools and discovery documents. */
export const ALL_PRODUCTS: readonly Product[] = DOMAINS.flatMap((d) => d.products);
