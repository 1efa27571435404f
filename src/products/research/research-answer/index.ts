import { z } from 'zod';
import { READ_EXTERNAL, product } from '../../kit/index.ts';
import { answerOutput, answerQuestion, questionField, type AnswerDepth } from '../answer-engine.ts';

/** The short read: few pages, short passages, a few statements. */
export const RESEARCH_ANSWER_DEPTH: AnswerDepth = { searchResults: 5, pagesRead: 3, passageChars: 500, passages: 6, perPage: 2, statements: 3 };

export const researchAnswer = product({
  id: 'research-answer',
  title: 'Research answer',
  description:
    'Returns a short sourced answer to a research question: searches the web, reads the top 3 pages, ranks their passages against the question (BM25) and answers in at most 3 statements, each citing the fetched page and passage it rests on (written by the operator\'s model and citation-checked, or extractive where no model is configured, per `method`). No answer found is `answer: null` with the reason; pages that cannot be read are 502, not charged. Free preview of the format: GET /api/v1/research-answer/preview.',
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({ question: questionField('The research question') }),
  inputExample: { question: 'What is HTTP status code 402 used for?' },
  output: answerOutput,
  outputExample: {
    "question": "What is HTTP status code 402 used for?",
    "answer": "The HTTP 402 Payment Required status code is a client error status. [1] x402 is an open payment protocol built on the HTTP 402 status code, so that clients such as AI agents can pay for an API call over plain HTTP. [2]",
    "method": "extractive",
    "statements": [
      {
        "text": "The HTTP 402 Payment Required status code is a client error status.",
        "citations": [
          1
        ]
      },
      {
        "text": "x402 is an open payment protocol built on the HTTP 402 status code, so that clients such as AI agents can pay for an API call over plain HTTP.",
        "citations": [
          2
        ]
      }
    ],
    "citations": [
      {
        "number": 1,
        "url": "https://docs.example.com/http/status/402",
        "title": "402 Payment Required | Example Docs",
        "source": "docs.example.com",
        "quote": "The HTTP 402 Payment Required status code is a client error status. HTTP/1.1 reserved it for future use, and RFC 9110 still defines no standard semantics for it. It was meant for digital cash and micropayment systems: the status tells the client that the requested resource is available only after a payment."
      },
      {
        "number": 2,
        "url": "https://docs.example.com/x402/how-it-works",
        "title": "How x402 works | Example Docs",
        "source": "docs.example.com",
        "quote": "x402 is an open payment protocol built on the HTTP 402 status code, so that clients such as AI agents can pay for an API call over plain HTTP. A server answers a request for a paid resource with status 402 and the payment requirements it accepts: the network, the asset, the amount and the recipient."
      }
    ],
    "no_answer": null,
    "search": {
      "provider": "SearXNG",
      "results": 4
    },
    "pages": [
      {
        "url": "https://docs.example.com/http/status/402",
        "title": "402 Payment Required | Example Docs",
        "read": true,
        "passages": 1,
        "problem": null
      },
      {
        "url": "https://docs.example.com/x402/how-it-works",
        "title": "How x402 works | Example Docs",
        "read": true,
        "passages": 1,
        "problem": null
      },
      {
        "url": "https://docs.example.com/http/status/broken",
        "title": "HTTP status codes (mirror)",
        "read": false,
        "passages": 0,
        "problem": "the page answered HTTP 500"
      },
      {
        "url": "https://docs.example.com/http/status/404",
        "title": "404 Not Found | Example Docs",
        "read": true,
        "passages": 0,
        "problem": null
      }
    ],
    "retrieved_at": "2025-06-01T12:00:00.000Z"
  },
  requires: ['web-search'],
  freeDoors: [{ method: 'GET', path: '/api/v1/research-answer/preview', note: 'the answer format, with a real captured answer' }],
  run: async (input, ctx) => answerQuestion(input.question, RESEARCH_ANSWER_DEPTH, ctx),
});
