import { z } from 'zod';
import { READ, product } from '../../kit/index.ts';
import { textField } from '../fields.ts';
import { requireEnglish } from '../language.ts';
import { rake } from './rake.ts';

/**
 * Key words and phrases of an English text with RAKE over our stop-word list (../stopwords.ts); RAKE
 * was chosen over YAKE by precision@5 on the labelled set of extract-keywords.test.ts.
 */
export const extractKeywords = product({
  id: 'extract-keywords',
  title: 'Extract keywords',
  description:
    'Returns the key words and phrases (1 to 3 words) of an English text, ranked by relevance with a score each (RAKE, computed locally; other languages are refused with 422 before payment).',
  path: '/api/v1/paid/keyword-extract',
  price: '0.004',
  annotations: READ,
  input: z.object({
    text: textField('Text to analyse (English)'),
    max_keywords: z.int().min(1).max(50).default(10).describe('Most keywords to return'),
  }),
  inputExample: { text: 'x402 lets HTTP APIs charge per call in USDC on Base and Solana.', max_keywords: 5 },
  output: z.object({
    keywords: z
      .array(
        z.object({
          keyword: z.string().describe('The key word or phrase, lowercased'),
          score: z.number().describe('Relevance relative to the best keyword (1); higher is more relevant'),
        }),
      )
      .describe('Keywords, most relevant first; near-duplicates (plurals, phrases inside phrases) left out'),
    method: z.literal('rake').describe('The engine: RAKE (Rapid Automatic Keyword Extraction), run locally'),
    language: z.string().describe('Detected language (ISO 639-3), `und` when the text is too short to tell'),
  }),
  outputExample: {
    "keywords": [
      {
        "keyword": "x402 lets http",
        "score": 1
      },
      {
        "keyword": "apis charge",
        "score": 0.444444
      },
      {
        "keyword": "base",
        "score": 0.111111
      },
      {
        "keyword": "call",
        "score": 0.111111
      },
      {
        "keyword": "solana",
        "score": 0.111111
      }
    ],
    "method": "rake",
    "language": "eng"
  },
  precheck: async (input) => void requireEnglish(input.text, 'text'),
  run: async (input) => {
    const language = requireEnglish(input.text, 'text');
    const ranked = rake(input.text, input.max_keywords);
    const top = ranked[0]?.raw ?? 1;
    return {
      keywords: ranked.map((k) => ({ keyword: k.keyword, score: Math.round((k.raw / top) * 1e6) / 1e6 })),
      method: 'rake' as const,
      language: language.code,
    };
  },
});
