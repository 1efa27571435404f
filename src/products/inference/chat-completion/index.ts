import { READ_EXTERNAL, product } from '../../kit/index.ts';
import { chatExample, chatInput, chatOutput, chatOutputExample, runChatCompletion } from '../chat.ts';

/** The fixed-price door to the chat upstream (see ../chat.ts). */
export const chatCompletion = product({
  id: 'chat-completion',
  title: 'Chat completion',
  description:
    'Runs one bounded chat completion (standard messages shape) on a catalogue model and returns the OpenAI-style chat-completion object, for a fixed 0.01 USD.',
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: chatInput,
  inputExample: chatExample,
  output: chatOutput,
  outputExample: chatOutputExample,
  publishOutputSchema: false,
  requires: ['llm'],
  run: runChatCompletion,
});
