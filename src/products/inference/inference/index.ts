import { READ_EXTERNAL, product, upto } from '../../kit/index.ts';
import { chatExample, chatInput, chatOutput, chatOutputExample, runChatCompletion } from '../chat.ts';

/** The metered door to the chat upstream: pay exact or authorize `upto` (see ../chat.ts). */
export const inference = product({
  id: 'inference',
  title: 'Chat-completion inference',
  description:
    'Runs a chat completion on one of six catalogue models (GET /api/v1/models) and returns the OpenAI-style chat-completion object, or an SSE stream with `stream: true`. Charged 0.01 USD per call; pay exact 0.01 or authorize up to 1.00 with `upto`.',
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
