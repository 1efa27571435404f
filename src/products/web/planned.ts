import { z } from 'zod';
import { OPEN_WORLD, READ_EXTERNAL, planned, usdAmount } from '../kit/index.ts';

export const webSearch = planned({
  id: 'web-search',
  title: 'Web search',
  description: 'Searches the web for a query and returns ranked results (title, URL, snippet).',
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({
    query: z.string().min(1).max(400).describe('Search query'),
    limit: z.int().min(1).max(20).default(10).describe('Most results to return'),
  }),
  inputExample: { query: 'x402 payment protocol specification', limit: 5 },
});

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

export const tweetsSearch = planned({
  id: 'tweets-search',
  title: 'Tweet search',
  description: 'Searches recent posts on X (Twitter) for a query and returns matching posts with author, time, text and engagement counts.',
  method: 'GET',
  price: '0.005',
  annotations: READ_EXTERNAL,
  input: z.object({
    query: z.string().min(1).max(512).describe('Search query (supports the usual search operators)'),
    limit: z.coerce.number().int().min(1).max(100).default(20).describe('Most posts to return'),
  }),
  inputExample: { query: 'x402', limit: 20 },
});
