/**
 * One chat completion through the operator's upstream, shared by inference and chat-completion.
 * With `stream: true` the upstream stream is read to its end first (nothing is released before the
 * charge is settled) and sent as SSE. When paid with `upto` and the operator meters by tokens, the
 * charge follows the usage.
 */
import { z } from 'zod';
import { EventStreamOutput, ProductInputError, UpstreamError, type ProductContext } from '../kit/index.ts';
import { UpstreamError as ChatUpstreamError } from '../../providers/llm.ts';
import { INFERENCE_MODELS, INFERENCE_MODEL_IDS } from './models.ts';

/** Most messages in one conversation, and characters in one message (the body limit bounds the total). */
export const MAX_MESSAGES = 256;
export const MAX_MESSAGE_CHARS = 200_000;

export const chatInput = z.object({
  model: z.enum(INFERENCE_MODEL_IDS).describe('Model id from GET /api/v1/models'),
  messages: z
    .array(
      z.object({
        role: z.string().describe('Message role: "system", "user" or "assistant"'),
        content: z.string().max(MAX_MESSAGE_CHARS).describe('Message text'),
      }),
    )
    .min(1)
    .max(MAX_MESSAGES)
    .describe('Conversation so far, oldest first'),
  stream: z.boolean().default(false).describe('true streams the completion as server-sent events'),
});

const usage = z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional(), total_tokens: z.number().optional() });

/** The OpenAI chat-completion object (other fields pass through), or with `stream: true` its chunks, sent as SSE over HTTP. */
export const chatOutput = z.union([
  z.looseObject({ id: z.string(), object: z.literal('chat.completion'), choices: z.array(z.unknown()), usage: usage.optional() }),
  z.object({ object: z.string().describe('"chat.completion.chunk.list"'), events: z.array(z.unknown()).readonly() }),
]);

export const chatExample = {
  model: INFERENCE_MODEL_IDS[0],
  messages: [
    { role: 'system', content: 'Answer in one sentence.' },
    { role: 'user', content: 'What is HTTP 402?' },
  ],
  stream: false,
};

export const chatOutputExample = {
  id: 'gen-1763769600-a1b2c3',
  object: 'chat.completion',
  created: 1763769600,
  model: INFERENCE_MODEL_IDS[0],
  choices: [{ index: 0, message: { role: 'assistant', content: 'HTTP 402 Payment Required asks the caller to pay before the server answers.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 24, completion_tokens: 15, total_tokens: 39 },
};

export async function runChatCompletion(input: z.output<typeof chatInput>, ctx: ProductContext): Promise<z.infer<typeof chatOutput>> {
  const llm = ctx.llm;
  if (!llm) throw new Error('no inference upstream is configured');
  const model = INFERENCE_MODELS.find((m) => m.id === input.model);
  if (!model) throw new ProductInputError(`unknown model ${input.model}`, 400, 'model');
  const request = { model: model.id, messages: input.messages, max_tokens: model.max_output_tokens };
  try {
    if (input.stream) {
      const stream = await llm.stream(request, ctx.signal);
      meter(ctx, stream.usage?.total_tokens);
      return new EventStreamOutput('chat.completion.chunk.list', stream.chunks);
    }
    const completion = await llm.complete(request, ctx.signal);
    meter(ctx, completion.usage?.total_tokens);
    return completion;
  } catch (error) {
    throw upstreamFailure(error);
  }
}

/**
 * The upstream's failure as the product's: 504 when it did not answer in time, else 502, nothing
 * charged either way. Its messages are our own sentences (the provider never passes upstream text on).
 */
export function upstreamFailure(error: unknown): unknown {
  if (!(error instanceof ChatUpstreamError)) return error;
  return new UpstreamError(error.message, error.timedOut ? 504 : 502);
}

/** Reports the usage-based charge when the call is metered (an `upto` payment) and the operator meters by tokens; the price otherwise. */
function meter(ctx: ProductContext, totalTokens: number | undefined): void {
  const rate = ctx.llm?.atomicPerThousandTokens;
  if (!ctx.metered || rate === undefined || totalTokens === undefined) return;
  // Rounded up to the next atomic unit; the gate caps it at the authorization. 0 tokens cost 0 (no transaction).
  ctx.metered.charge((BigInt(Math.max(0, Math.ceil(totalTokens))) * rate + 999n) / 1000n);
}
