/**
 * service_gateway: calls a path of one of the operator's allowlisted x402 sellers (GATEWAY_SELLERS)
 * and pays the seller from the operator's wallet. The quote follows the seller: each request's price
 * is the seller's current price for that call (read from its 402, never paying) plus 10%, rounded up
 * to the atomic unit; a paid call is priced again the same way, so a payment signed for an older
 * price gets the new terms instead. When the call runs, the seller is paid at most the caller's
 * payment less the margin (floor(charge × 10 / 11), exactly the seller's price at quote time): a
 * seller that asks more by then is not paid and the caller is not charged (409). The caller's payment
 * settles only after the seller's paid answer is in hand (the gate's order); a seller that fails
 * after taking the operator's payment is the operator's loss, recorded, never the caller's.
 */
import { z } from 'zod';
import { atomicToUsd } from '../../../money.ts';
import { SafeFetchError, type SafeRequest } from '../../../providers/safe-fetch.ts';
import { OPEN_WORLD, ProductInputError, UpstreamError, product, type OperatorWallet, type QuoteContext } from '../../kit/index.ts';
import { capFailure, contentOf, contentSchema, paidButFailed, paymentOf, upstreamPaymentSchema } from '../upstream-content.ts';

export const GATEWAY_PRODUCT = 'service-gateway';
/** The margin: the caller pays the seller's price × 11 / 10, rounded up to the atomic unit. */
export const quoteFor = (upstreamAtomic: bigint): bigint => (upstreamAtomic * 11n + 9n) / 10n;
/** The most the seller may be paid for a caller's payment: the price it had when the caller was quoted. */
export const ceilingFor = (chargedAtomic: bigint): bigint => (chargedAtomic * 10n) / 11n;

const input = z.object({
  seller: z.string().min(1).max(40).describe('Id of the allowlisted upstream seller (see the operator’s GATEWAY_SELLERS; a dev instance’s default is `percall`, itself)'),
  path: z.string().min(1).max(1000).describe("Path of the seller's resource, under the seller's base URL, e.g. /api/v1/paid/time"),
  method: z.enum(['GET', 'POST']).optional().describe('HTTP method; default POST when `input` is given, else GET'),
  input: z.record(z.string(), z.unknown()).optional().describe("Input for the seller's resource: the JSON body of a POST, the query of a GET"),
});
type Input = z.output<typeof input>;

const output = z.object({
  seller: z.string().describe('The seller called'),
  url: z.string().describe('The upstream URL called'),
  ...contentSchema,
  price: z
    .object({
      upstream: z.string().describe('USD the seller was paid'),
      charged: z.string().describe('USD this call costs the caller (the seller’s price plus 10%, rounded up)'),
      margin: z.string().describe('USD kept by the gateway'),
    })
    .describe('What moved, in USD'),
  upstream_payment: upstreamPaymentSchema.describe("The operator's payment to the seller"),
});

export const serviceGateway = product({
  id: GATEWAY_PRODUCT,
  title: 'Service gateway',
  description:
    "Calls one of the operator's allowlisted upstream x402 sellers on your behalf, pays it from the operator's wallet and returns its answer with the seller's settlement. The price of each call is the seller's current price plus a 10% margin (read from its 402 when you are quoted); the seller is never paid more than it asked then, and a failed upstream call costs you nothing.",
  price: '0.001187',
  annotations: OPEN_WORLD,
  requires: ['gateway'],
  input,
  // Runs as is on a dev instance, whose default allowlist is the instance itself (seller `percall`).
  inputExample: { seller: 'percall', path: '/api/v1/paid/time' },
  output,
  outputExample: {
    "seller": "percall",
    "url": "http://127.0.0.1:36083/api/v1/paid/time",
    "status": 200,
    "content_type": "application/json",
    "body_encoding": "json",
    "body": {
      "time": "2026-11-27T02:44:38.304Z",
      "unix": 1795747478
    },
    "price": {
      "upstream": "0.01",
      "charged": "0.011",
      "margin": "0.001"
    },
    "upstream_payment": {
      "amount": "0.01",
      "amount_atomic": "10000",
      "network": "eip155:31337",
      "asset": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      "pay_to": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      "settlement": {
        "success": true,
        "transaction": "0x1cce99f6fa4979ff1dadb6b3d2aea5ec7cb086b3a44b1c3c9d51ed3f03c802e5",
        "network": "eip155:31337",
        "payer": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"
      }
    }
  },
  dynamicPrice: async (call, ctx) => {
    const operator = wallet(ctx);
    const target = resolve(operator, call);
    const answer = await unpaid(operator, target);
    if (answer.status !== 402) {
      // 501 is a seller saying it does not sell that path (percall's own unavailable products): the caller's path, not an outage.
      if (answer.status >= 500 && answer.status !== 501) throw new UpstreamError(`the seller answered HTTP ${answer.status}`, 502, 'seller');
      throw new ProductInputError(`the seller's ${call.path} answered HTTP ${answer.status} without asking for payment: nothing to buy through the gateway`, 422, 'path');
    }
    const terms = operator.termsOf(answer);
    if (!terms) throw new UpstreamError("the seller's 402 carries no readable x402 terms", 502, 'seller');
    const option = operator.payable(terms);
    if (!option) throw new ProductInputError(`the seller takes no payment the gateway makes (x402 exact, USDC on ${operator.network})`, 422, 'seller');
    return atomicToUsd(quoteFor(BigInt(option.amount)));
  },
  run: async (call, ctx) => {
    const operator = wallet(ctx);
    // Only a paid call is run with its payment: a run without one (a redemption re-run) never pays again.
    if (!ctx.payment) throw new Error('the service gateway runs only with the payment of the call');
    const target = resolve(operator, call);
    const ceiling = ceilingFor(ctx.payment.amount);
    let result;
    try {
      result = await operator.pay(
        { url: target.url, request: target.request, maxAmount: ceiling, product: GATEWAY_PRODUCT, callerPaymentKey: ctx.payment.key, ...(ctx.caller ? { caller: ctx.caller } : {}) },
        operator.fetchSeller,
      );
    } catch (error) {
      throw sellerFailure(capFailure(error));
    }
    switch (result.kind) {
      case 'above_limit':
        throw priceChanged(`the seller now asks ${atomicToUsd(result.cheapest.amount)} USD, more than the ${atomicToUsd(ceiling)} USD it asked when you were quoted; nothing was paid to it`);
      case 'free':
        throw priceChanged('the seller no longer asks for payment for this call');
      case 'unpayable':
        throw new UpstreamError('the seller no longer takes a payment the gateway makes', 502, 'seller');
      case 'unsettled':
        throw paidButFailed(result.response.status, 'seller');
      case 'paid': {
        if (result.response.status >= 400) throw paidButFailed(result.response.status, 'seller');
        const upstream = BigInt(result.requirements.amount);
        return {
          seller: call.seller,
          url: target.url,
          ...contentOf(result.response),
          price: { upstream: atomicToUsd(upstream), charged: atomicToUsd(ctx.payment.amount), margin: atomicToUsd(ctx.payment.amount - upstream) },
          upstream_payment: paymentOf(result.requirements, result.settlement),
        };
      }
    }
  },
});

function wallet(ctx: Pick<QuoteContext, 'operator'>): OperatorWallet {
  if (!ctx.operator) throw new Error('the service gateway needs the operator wallet');
  return ctx.operator;
}

/** The seller's URL for this call: its base and the path (which may not leave the base), the input as query or body. */
export function resolve(operator: OperatorWallet, call: Input): { url: string; request: SafeRequest } {
  const base = operator.sellers.get(call.seller);
  if (!base) throw new ProductInputError(`${call.seller} is not an allowlisted seller; the gateway calls ${[...operator.sellers.keys()].join(', ') || 'none'}`, 400, 'seller');
  if (!call.path.startsWith('/') || call.path.startsWith('//') || /[?#\\\s]/.test(call.path) || hasDotSegment(call.path)) {
    throw new ProductInputError('must be an absolute path under the seller’s base URL, without query, fragment, backslashes or dot segments', 400, 'path');
  }
  const baseUrl = new URL(base);
  const url = new URL(baseUrl.href.replace(/\/$/, '') + call.path);
  const basePath = baseUrl.pathname.replace(/\/$/, '');
  if (url.origin !== baseUrl.origin || !(url.pathname === basePath || url.pathname.startsWith(`${basePath}/`))) {
    throw new ProductInputError('leaves the seller’s base URL', 400, 'path');
  }
  const method = call.method ?? (call.input ? 'POST' : 'GET');
  if (method === 'GET') {
    for (const [key, value] of Object.entries(call.input ?? {})) url.searchParams.set(key, typeof value === 'string' ? value : JSON.stringify(value));
    return { url: url.href, request: { method } };
  }
  return { url: url.href, request: { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(call.input ?? {}) } };
}

function hasDotSegment(path: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return true;
  }
  return decoded.split('/').some((segment) => segment === '.' || segment === '..') || /%2f/i.test(path);
}

async function unpaid(operator: OperatorWallet, target: { url: string; request: SafeRequest }) {
  try {
    return await operator.fetchSeller(target.url, target.request);
  } catch (error) {
    throw sellerFailure(error);
  }
}

/** A seller that gives no answer is the upstream's failure (the operator listed it), 504 on a timeout. */
function sellerFailure(error: unknown): unknown {
  if (!(error instanceof SafeFetchError)) return error;
  return new UpstreamError(`the seller gave no answer (${error.code})`, error.code === 'timeout' ? 504 : 502, 'seller');
}

function priceChanged(message: string): ProductInputError {
  return new ProductInputError(`${message}; nothing was charged: ask for a new quote`, 409, 'path', 'upstream_price_changed');
}
