import { ProductInputError, type ProductContext } from '../catalogue/types.ts';
import { INFERENCE_MODELS } from '../catalogue/models.ts';
import type { ChatCompletion } from '../providers/llm.ts';
import { EventStreamOutput } from './event-stream.ts';

export interface ChatInput {
  model: string;
  messages: { role: string; content: string }[];
  stream: boolean;
}

/**
 * One chat completion through the operator's upstream. With `stream: true` the upstream stream is
 * read to its end first (nothing is released before the charge is settled) and sent as SSE.
 * When paid with `upto` and the operator meters by tokens, the charge follows the usage.
 */
export async function runChatCompletion(input: ChatInput, ctx: ProductContext): Promise<ChatCompletion | EventStreamOutput> {
  const llm = ctx.llm;
  if (!llm) throw new Error('no inference upstream is configured');
  const model = INFERENCE_MODELS.find((m) => m.id === input.model);
  if (!model) throw new ProductInputError(`unknown model ${input.model}`, 400, 'model');
  const request = { model: model.id, messages: input.messages, max_tokens: model.max_output_tokens };
  if (input.stream) {
    const stream = await llm.stream(request, ctx.signal);
    meter(ctx, stream.usage?.total_tokens);
    return new EventStreamOutput('chat.completion.chunk.list', stream.chunks);
  }
  const completion = await llm.complete(request, ctx.signal);
  meter(ctx, completion.usage?.total_tokens);
  return completion;
}

/** Reports the usage-based charge when the call is metered (an `upto` payment) and the operator meters by tokens; the price otherwise. */
function meter(ctx: ProductContext, totalTokens: number | undefined): void {
  const rate = ctx.llm?.atomicPerThousandTokens;
  if (!ctx.metered || rate === undefined || totalTokens === undefined) return;
  // Rounded up to the next atomic unit; the gate caps it at the authorization. 0 tokens cost 0 (no transaction).
  ctx.metered.charge((BigInt(Math.max(0, Math.ceil(totalTokens))) * rate + 999n) / 1000n);
}
