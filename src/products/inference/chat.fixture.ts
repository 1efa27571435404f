// Test fixture: a stand-in for the operator's inference upstream.
import type { ChatCompletion, ChatRequest, ChatStream, ChatUpstream } from '../../providers/llm.ts';

export function fakeLlm(options: { totalTokens?: number; atomicPerThousandTokens?: bigint } = {}) {
  const requests: ChatRequest[] = [];
  const usage = { prompt_tokens: 24, completion_tokens: 15, total_tokens: options.totalTokens ?? 39 };
  const llm = {
    atomicPerThousandTokens: options.atomicPerThousandTokens,
    complete: async (request: ChatRequest): Promise<ChatCompletion> => {
      requests.push(request);
      return { id: 'gen-1', object: 'chat.completion', model: request.model, choices: [{ index: 0, message: { role: 'assistant', content: 'Pay first.' } }], usage };
    },
    stream: async (request: ChatRequest): Promise<ChatStream> => {
      requests.push(request);
      return { chunks: ['Pay', ' first.'].map((content) => ({ object: 'chat.completion.chunk', choices: [{ delta: { content } }] })), usage };
    },
  };
  return { llm: llm as unknown as ChatUpstream, requests };
}

/** The charge a metered call reported, if any. */
export function meteredCall(maximum = 1_000_000n) {
  const charges: bigint[] = [];
  return { metered: { base: 10_000n, maximum, charge: (atomic: bigint) => void charges.push(atomic) }, charges };
}
