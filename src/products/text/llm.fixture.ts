// Test fixture: the text products' context with a real ChatUpstream talking to the OpenAI-wire double.
import { ChatUpstream } from '../../providers/llm.ts';
import { fakeContext } from '../kit/fake-context.ts';
import type { ProductContext } from '../kit/index.ts';
import { startOpenAiDouble, type OpenAiDouble } from '../../../test/helpers/openai-double.ts';

export const FIXTURE_KEY = 'sk-test-text-products';

export async function llmDouble(): Promise<{ double: OpenAiDouble; ctx(): ProductContext; messagesOf(i: number): { role: string; content: string }[] }> {
  const double = await startOpenAiDouble(FIXTURE_KEY);
  const llm = new ChatUpstream({ baseUrl: double.url, apiKey: FIXTURE_KEY, timeoutMs: 2_000, textModel: 'openai/gpt-4.1-mini' });
  return {
    double,
    ctx: () => fakeContext({ llm }),
    messagesOf: (i) => (double.requests.at(i)!.body.messages as { role: string; content: string }[]),
  };
}
