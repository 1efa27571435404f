import { z } from 'zod';
import { READ_EXTERNAL, product } from '../../kit/index.ts';
import { answerOutput, answerQuestion, questionField, type AnswerDepth } from '../answer-engine.ts';

/** The deep read: more results and pages, longer passages, a fuller answer. */
export const ANSWER_WITH_SOURCES_DEPTH: AnswerDepth = { searchResults: 10, pagesRead: 6, passageChars: 900, passages: 12, perPage: 3, statements: 6 };

export const answerWithSources = product({
  id: 'answer-with-sources',
  title: 'Answer with sources',
  description:
    'Answers a question concisely from live web sources with its citations: searches the web, reads the top 6 pages, ranks their passages against the question (BM25) and answers in at most 6 statements, each citing the fetched page and the passage it rests on (written by the operator\'s model and citation-checked, or extractive where no model is configured, per `method`). No answer found is `answer: null` with the reason; pages that cannot be read are 502, not charged.',
  price: '0.65',
  annotations: READ_EXTERNAL,
  input: z.object({ question: questionField('The question to answer') }),
  inputExample: { question: 'How does x402 use the HTTP 402 status code for payments?' },
  output: answerOutput,
  outputExample: {
    "question": "How does x402 use the HTTP 402 status code for payments?",
    "answer": "x402 is an open payment protocol built on the HTTP 402 status code, so that clients such as AI agents can pay for an API call over plain HTTP. [1] The HTTP 402 Payment Required status code is a client error status. [2]",
    "method": "extractive",
    "statements": [
      {
        "text": "x402 is an open payment protocol built on the HTTP 402 status code, so that clients such as AI agents can pay for an API call over plain HTTP.",
        "citations": [
          1
        ]
      },
      {
        "text": "The HTTP 402 Payment Required status code is a client error status.",
        "citations": [
          2
        ]
      }
    ],
    "citations": [
      {
        "number": 1,
        "url": "https://docs.example.com/x402/how-it-works",
        "title": "How x402 works | Example Docs",
        "source": "docs.example.com",
        "quote": "x402 is an open payment protocol built on the HTTP 402 status code, so that clients such as AI agents can pay for an API call over plain HTTP. A server answers a request for a paid resource with status 402 and the payment requirements it accepts: the network, the asset, the amount and the recipient. The client signs a payment authorization for one of those requirements and sends the request again with the payment in a header. The server verifies the payment, settles it on chain, usually through a facilitator, and returns the resource with a payment response header."
      },
      {
        "number": 2,
        "url": "https://docs.example.com/http/status/402",
        "title": "402 Payment Required | Example Docs",
        "source": "docs.example.com",
        "quote": "The HTTP 402 Payment Required status code is a client error status. HTTP/1.1 reserved it for future use, and RFC 9110 still defines no standard semantics for it. It was meant for digital cash and micropayment systems: the status tells the client that the requested resource is available only after a payment. Since no convention was ever standardised, services that answer 402 describe in the response body what the client has to pay and how."
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
  run: async (input, ctx) => answerQuestion(input.question, ANSWER_WITH_SOURCES_DEPTH, ctx),
});
