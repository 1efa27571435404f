import { z } from 'zod';
import { READ, READ_EXTERNAL, planned } from '../kit/index.ts';

// Text products compute on what the caller supplies (READ), sentiment also on public discussion.
const TEXT_MAX = 100_000;

export const sentiment = planned({
  id: 'sentiment',
  title: 'Sentiment analysis',
  description:
    'Returns positive, neutral and negative sentiment signals for a topic or token (from recent public discussion), or for a text you supply in `query`.',
  price: '0.05',
  annotations: READ_EXTERNAL,
  input: z.object({
    query: z.string().min(1).describe('A topic or token name, or the text to analyse'),
  }),
  inputExample: { query: 'ETH' },
});

export const classifyText = planned({
  id: 'classify-text',
  title: 'Classify text',
  description: 'Classifies a text into one of 2 to 20 caller-given labels and returns the chosen label with a score for every label.',
  path: '/api/v1/paid/classify',
  price: '0.005',
  annotations: READ,
  input: z.object({
    text: z.string().min(1).max(TEXT_MAX).describe('Text to classify'),
    labels: z.array(z.string().min(1).max(100)).min(2).max(20).describe('Candidate labels, 2 to 20'),
  }),
  inputExample: { text: 'The payment settled but the API returned 500.', labels: ['bug report', 'feature request', 'praise'] },
});

export const extractJson = planned({
  id: 'extract-json',
  title: 'Extract JSON',
  description:
    "Extracts structured data from a text as a JSON object conforming to the caller's JSON Schema (one automatic retry when the first answer does not validate); returns the object.",
  price: '0.01',
  annotations: READ,
  input: z.object({
    text: z.string().min(1).max(TEXT_MAX).describe('Source text'),
    schema: z.record(z.string(), z.unknown()).describe('JSON Schema object the output must satisfy'),
  }),
  inputExample: {
    text: 'Invoice 1042 from Acme Ltd, total 12.50 USD, due 2025-07-01.',
    schema: {
      type: 'object',
      properties: { invoice: { type: 'string' }, vendor: { type: 'string' }, total: { type: 'number' } },
      required: ['invoice', 'vendor', 'total'],
    },
  },
});

export const extractKeywords = planned({
  id: 'extract-keywords',
  title: 'Extract keywords',
  description: 'Returns the key words and phrases of a text, ranked by relevance with a score each.',
  path: '/api/v1/paid/keyword-extract',
  price: '0.004',
  annotations: READ,
  input: z.object({
    text: z.string().min(1).max(TEXT_MAX).describe('Text to analyse'),
    max_keywords: z.int().min(1).max(50).default(10).describe('Most keywords to return'),
  }),
  inputExample: { text: 'x402 lets HTTP APIs charge per call in USDC on Base and Solana.', max_keywords: 5 },
});

export const rewriteText = planned({
  id: 'rewrite-text',
  title: 'Rewrite text',
  description: 'Rewrites a text following an instruction (tone, length, audience) and returns the rewritten text.',
  path: '/api/v1/paid/rewrite',
  price: '0.005',
  annotations: READ,
  input: z.object({
    text: z.string().min(1).max(TEXT_MAX).describe('Text to rewrite'),
    instruction: z.string().max(1000).optional().describe('How to rewrite it, e.g. "more formal, under 50 words"'),
  }),
  inputExample: { text: 'hey, the api is down again, pls fix', instruction: 'polite and formal' },
});

export const summarizeText = planned({
  id: 'summarize-text',
  title: 'Summarize text',
  description: 'Summarizes a text as bullets, a paragraph or a one-liner and returns the summary.',
  path: '/api/v1/paid/summarize',
  price: '0.008',
  annotations: READ,
  input: z.object({
    text: z.string().min(1).max(TEXT_MAX).describe('Text to summarize'),
    format: z.enum(['bullets', 'paragraph', 'one_liner']).default('paragraph').describe('Shape of the summary'),
  }),
  inputExample: {
    text: 'x402 is an open payment protocol that uses HTTP 402 to let clients pay per request in stablecoins…',
    format: 'bullets',
  },
});
