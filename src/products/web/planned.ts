import { z } from 'zod';
import { OPEN_WORLD, planned, usdAmount } from '../kit/index.ts';

export const fetchX402Content = planned({
  id: 'fetch-x402-content',
  title: 'Fetch x402-paywalled content',
  description:
    'Fetches a resource that is behind an x402 paywall, paying it on your behalf up to the stated cap, and returns its content with the payment receipt. One free fetch per wallet per day.',
  path: '/api/v1/paid/fetch-x402',
  price: '0.02',
  annotations: OPEN_WORLD,
  input: z.object({
    url: z.url().describe('URL of the x402-protected resource'),
    method: z.enum(['GET', 'POST']).default('GET').describe('HTTP method to call it with'),
    body: z.unknown().optional().describe('JSON body for POST'),
    max_price: usdAmount().optional().describe('Most USD to pay the resource, as a decimal string, e.g. "0.05"'),
  }),
  inputExample: { url: 'https://api.example.com/api/v1/paid/time', method: 'GET', max_price: '0.05' },
  freeTier: { perWalletPerDay: 1, note: 'one free fetch per wallet per day' },
});

