import { READ_EXTERNAL, product, upto } from '../../kit/index.ts';
import { chatExample, chatInput, chatOutput, chatOutputExample, runChatCompletion } from '../chat.ts';

/**
 * One chat completion at 0.01 USD (see ../chat.ts); also the product the OpenAI-compatible door
 * (`POST /openai/v1/chat/completions`, src/http/openai-door.ts) sells, so it takes `upto` like
 * `inference`: authorize up to 1.00 and be charged the price (or the usage, when the operator meters).
 */
export const chatCompletion = product({
  id: 'chat-completion',
  title: 'Chat completion',
  description:
    'Runs one bounded chat completion (standard messages shape) on a catalogue model and returns the OpenAI-style chat-completion object, or an SSE stream with `stream: true`, for 0.01 USD; pay exact 0.01 or authorize up to 1.00 with `upto`. Also served OpenAI-compatible at POST /openai/v1/chat/completions.',
  price: '0.01',
  mode: upto('1.00'),
  annotations: READ_EXTERNAL,
  input: chatInput,
  inputExample: chatExample,
  output: chatOutput,
  outputExample: chatOutputExample,
  publishOutputSchema: false,
  requires: ['llm'],
  run: runChatCompletion,
});
