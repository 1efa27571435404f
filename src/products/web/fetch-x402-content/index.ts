/**
 * fetch_x402_content: fetches a URL through the safe fetcher and, when it answers 402, pays it from
 * the operator's wallet (the official x402 client, `exact`, USDC on this instance's EVM network) up
 * to the caller's `max_price` and the operator's cap per fetch (FETCH_X402_MAX_PRICE_USD), then
 * returns the content with the upstream's settlement (PAYMENT-RESPONSE, decoded).
 *
 * A resource priced above that limit (or payable in no way the operator pays) is not paid: the
 * answer is its terms, and the call is charged. The product answered what was asked, what the
 * resource costs and why it was not bought, as b402_preflight does; refusing would make the caller
 * pay again to learn the same terms. A target that gives no answer, or fails after being paid, is not
 * charged (the operator's payment is then its loss, in the ledger).
 */
import { z } from 'zod';
import { atomicToUsd, usdToAtomic } from '../../../money.ts';
import { SafeFetchError } from '../../../providers/safe-fetch.ts';
import { OPEN_WORLD, ProductInputError, UpstreamError, fetchFailure, fetchableUrl, product, usdAmount } from '../../kit/index.ts';
import { capFailure, contentOf, contentSchema, paidButFailed, paymentOf, termsOf, termsSchema, upstreamPaymentSchema } from '../../payments/upstream-content.ts';

export const FETCH_X402_PRODUCT = 'fetch-x402-content';

const output = z.object({
  url: z.string().describe('The URL fetched (after redirects)'),
  ...contentSchema,
  paid: z.boolean().describe('Whether the operator paid the resource for this answer'),
  payment: upstreamPaymentSchema.nullable().describe('The payment made, with the upstream’s settlement; null when nothing was paid'),
  not_paid: z
    .enum(['no_payment_asked', 'price_above_limit', 'no_payable_option'])
    .nullable()
    .describe('Why nothing was paid: the resource asked for none, asked more than the limit, or offered no option the operator pays (x402 exact, USDC on its network); null when paid'),
  terms: termsSchema.nullable().describe('The resource’s payment terms when they were not paid (its 402), else null'),
  limit: z.string().describe('The most that could be paid for this fetch, USD: the lower of max_price and the operator’s cap per fetch'),
});

export const fetchX402Content = product({
  id: FETCH_X402_PRODUCT,
  title: 'Fetch x402-paywalled content',
  description:
    'Fetches a resource that is behind an x402 paywall, paying it from the operator’s wallet up to your max_price and the operator’s cap per fetch, and returns its content with the upstream’s settlement receipt. A resource priced above the limit is not paid: you get its terms. One free fetch per wallet per day.',
  path: '/api/v1/paid/fetch-x402',
  price: '0.02',
  annotations: OPEN_WORLD,
  requires: ['operator'],
  input: z.object({
    url: fetchableUrl().describe('URL of the x402-protected resource'),
    method: z.enum(['GET', 'POST']).default('GET').describe('HTTP method to call it with'),
    body: z.unknown().optional().describe('JSON body for POST'),
    max_price: usdAmount().optional().describe('Most USD to pay the resource, as a decimal string, e.g. "0.05" (never more than the operator’s cap per fetch)'),
  }),
  inputExample: { url: 'https://api.example.com/api/v1/paid/quote', max_price: '0.005' },
  freeTier: { perWalletPerDay: 1, note: 'one free fetch per wallet per day' },
  output,
  outputExample: {
    "url": "http://127.0.0.1:37713/api/v1/paid/quote",
    "status": 200,
    "content_type": "application/json",
    "body_encoding": "json",
    "body": {
      "quote": "The early bird pays the worm.",
      "topic": null
    },
    "paid": true,
    "payment": {
      "amount": "0.001",
      "amount_atomic": "1000",
      "network": "eip155:31337",
      "asset": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      "pay_to": "0x1E0D09b3eE48F3bE8C0555a82454FB4eE883ADD2",
      "settlement": {
        "success": true,
        "transaction": "0x563364fcbca4e919a67c560cb3e55932da4ddb8f4b85fa11cc4372976a32c440",
        "network": "eip155:31337",
        "payer": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"
      }
    },
    "not_paid": null,
    "terms": null,
    "limit": "0.005"
  },
  run: async (call, ctx) => {
    const operator = ctx.operator;
    if (!operator) throw new Error('fetch_x402_content needs the operator wallet');
    const cap = operator.maxPerFetch;
    const asked = call.max_price === undefined ? cap : usdToAtomic(call.max_price);
    const limit = asked < cap ? asked : cap;
    const request =
      call.method === 'POST' ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call.body ?? {}) } : { method: 'GET' };
    let result;
    try {
      result = await operator.pay(
        {
          url: call.url,
          request,
          maxAmount: limit,
          product: FETCH_X402_PRODUCT,
          ...(ctx.payment ? { callerPaymentKey: ctx.payment.key } : {}),
          ...(ctx.caller ? { caller: ctx.caller } : {}),
        },
        ctx.fetch,
      );
    } catch (error) {
      throw error instanceof SafeFetchError ? fetchFailure(error) : capFailure(error);
    }
    const unpaid = { paid: false, payment: null, limit: atomicToUsd(limit) };
    switch (result.kind) {
      case 'free':
        if (result.response.status >= 500) throw new UpstreamError(`the resource answered HTTP ${result.response.status}`, 502, 'url');
        if (result.response.status >= 400) throw new ProductInputError(`the resource answered HTTP ${result.response.status}`, 422, 'url');
        return { url: result.response.url, ...contentOf(result.response), ...unpaid, not_paid: 'no_payment_asked' as const, terms: null };
      case 'above_limit':
      case 'unpayable':
        if (!result.terms) throw new UpstreamError('the resource answered 402 without readable x402 terms', 502, 'url');
        return {
          url: call.url,
          status: 402,
          content_type: 'application/json',
          body_encoding: 'json' as const,
          body: null,
          ...unpaid,
          not_paid: result.kind === 'above_limit' ? ('price_above_limit' as const) : ('no_payable_option' as const),
          terms: termsOf(result.terms),
        };
      case 'unsettled':
        throw paidButFailed(result.response.status, 'url');
      case 'paid':
        if (result.response.status >= 400) throw paidButFailed(result.response.status, 'url');
        return {
          url: result.response.url,
          ...contentOf(result.response),
          paid: true,
          payment: paymentOf(result.requirements, result.settlement),
          not_paid: null,
          terms: null,
          limit: atomicToUsd(limit),
        };
    }
  },
});
