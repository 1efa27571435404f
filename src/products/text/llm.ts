/**
 * The text products' LLM modes: one request to the operator's inference upstream (its text model,
 * INFERENCE_TEXT_MODEL, temperature 0), the caller's text fenced off as data. JSON answers are
 * checked, and a wrong one is asked again once with what was wrong; a second wrong answer is the
 * upstream's failure (502, nothing charged).
 */
import { ProductInputError, UpstreamError, type ProductContext } from '../kit/index.ts';
import type { ChatMessage } from '../../providers/llm.ts';
import { upstreamFailure } from '../inference/chat.ts';

/** Code of the 422 a local-or-LLM product answers when asked for its LLM mode on an instance without upstream. */
export const LLM_NOT_CONFIGURED = 'llm_not_configured';

/** Longest answer a text product asks for. */
const MAX_OUTPUT_TOKENS = 4_096;

/** The caller's text as one user message, fenced so instructions inside it read as data. */
export const fenced = (label: string, text: string): string => `<${label}>\n${text}\n</${label}>`;

/** The LLM mode's model, or a 422 (before payment, in a precheck) when this instance has no upstream. */
export function requireLlm(ctx: Pick<ProductContext, 'llm'>, field: string, what: string): string {
  if (!ctx.llm) throw new ProductInputError(`${what} needs an inference upstream, and this instance has none (INFERENCE_API_KEY)`, 422, field, LLM_NOT_CONFIGURED);
  return ctx.llm.textModel;
}

/** One completion's text. */
export async function complete(ctx: ProductContext, messages: ChatMessage[]): Promise<{ text: string; model: string }> {
  const llm = ctx.llm;
  if (!llm) throw new Error('no inference upstream is configured');
  try {
    const completion = await llm.complete({ model: llm.textModel, messages, max_tokens: MAX_OUTPUT_TOKENS, temperature: 0 }, ctx.signal);
    const content = (completion.choices[0] as { message?: { content?: unknown } } | undefined)?.message?.content;
    if (typeof content !== 'string' || content.trim() === '') throw new UpstreamError('the inference upstream answered with an empty message');
    return { text: content.trim(), model: typeof completion.model === 'string' ? completion.model : llm.textModel };
  } catch (error) {
    throw upstreamFailure(error);
  }
}

/**
 * A JSON answer that `check` accepts (it returns what is wrong, empty when nothing is): asked once,
 * then once more with the problems; a second bad answer is a 502.
 */
export async function completeJson<T>(
  ctx: ProductContext,
  messages: ChatMessage[],
  check: (value: unknown) => { ok: true; value: T } | { ok: false; problems: string[] },
): Promise<{ value: T; model: string; attempts: number }> {
  const conversation = [...messages];
  let problems: string[] = [];
  for (let attempt = 1; attempt <= 2; attempt++) {
    const { text, model } = await complete(ctx, conversation);
    const parsed = parseJson(text);
    const checked = parsed.ok ? check(parsed.value) : { ok: false as const, problems: ['the answer is not JSON'] };
    if (checked.ok) return { value: checked.value, model, attempts: attempt };
    problems = checked.problems;
    conversation.push(
      { role: 'assistant', content: text },
      { role: 'user', content: `That answer is not valid: ${problems.slice(0, 10).join('; ')}. Answer again with only the corrected JSON, nothing else.` },
    );
  }
  throw new UpstreamError(`the model's answer was not valid twice (${problems.slice(0, 3).join('; ').slice(0, 300)})`, 502);
}

/** JSON out of a model's answer: the whole text, or the body of a ``` fence. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  for (const candidate of [text, fence?.[1]]) {
    if (candidate === undefined) continue;
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch {
      // try the next form
    }
  }
  return { ok: false };
}
