import { z } from 'zod';
import { INFERENCE_MODEL_IDS } from './models.ts';
import { runChatCompletion } from '../products/inference.ts';
import { FIXED, X402_BOTH, available, type Product } from './types.ts';

const ANNOTATIONS = { readOnlyHint: true, openWorldHint: true } as const;

export const chatInput = z.object({
  model: z.enum(INFERENCE_MODEL_IDS).describe('Model id from GET /api/v1/models'),
  messages: z
    .array(
      z.object({
        role: z.string().describe('Message role: "system", "user" or "assistant"'),
        content: z.string().describe('Message text'),
      }),
    )
    .min(1)
    .describe('Conversation so far, oldest first'),
  stream: z.boolean().default(false).describe('true streams the completion as server-sent events'),
});

const chatExample = {
  model: INFERENCE_MODEL_IDS[0],
  messages: [
    { role: 'system', content: 'Answer in one sentence.' },
    { role: 'user', content: 'What is HTTP 402?' },
  ],
  stream: false,
};

const chatOutputExample = {
  id: 'gen-1763769600-a1b2c3',
  object: 'chat.completion',
  created: 1763769600,
  model: INFERENCE_MODEL_IDS[0],
  choices: [{ index: 0, message: { role: 'assistant', content: 'HTTP 402 Payment Required asks the caller to pay before the server answers.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 24, completion_tokens: 15, total_tokens: 39 },
};

export const inferenceProducts: Product[] = [
  available({
    id: 'inference',
    title: 'Chat-completion inference',
    description:
      'Runs a chat completion on one of six catalogue models (GET /api/v1/models) and returns the OpenAI-style chat-completion object, or an SSE stream with `stream: true`. Charged 0.01 USD per call; pay exact 0.01 or authorize up to 1.00 with `upto`.',
    category: 'inference',
    http: { method: 'POST', path: '/api/v1/paid/inference', price: '0.01' },
    mcp: { tool: 'inference', price: '0.01', annotations: ANNOTATIONS },
    mode: { kind: 'upto', maximumAuthorization: '1.00' },
    rails: X402_BOTH,
    input: chatInput,
    inputExample: chatExample,
    outputExample: chatOutputExample,
    requires: ['llm'],
    run: runChatCompletion,
  }),
  available({
    id: 'chat-completion',
    title: 'Chat completion',
    description:
      'Runs one bounded chat completion (standard messages shape) on a catalogue model and returns the OpenAI-style chat-completion object, for a fixed 0.01 USD.',
    category: 'inference',
    http: { method: 'POST', path: '/api/v1/paid/chat-completion', price: '0.01' },
    mcp: { tool: 'chat_completion', price: '0.01', annotations: ANNOTATIONS },
    mode: FIXED,
    rails: X402_BOTH,
    input: chatInput,
    inputExample: chatExample,
    outputExample: chatOutputExample,
    requires: ['llm'],
    run: runChatCompletion,
  }),
];
