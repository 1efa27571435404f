import { describe, expect, it } from 'vitest';
import { EventStreamOutput } from '../../kit/index.ts';
import { fakeContext } from '../../kit/fake-context.ts';
import { fakeLlm, meteredCall } from '../chat.fixture.ts';
import { INFERENCE_MODELS } from '../models.ts';
import { inference } from './index.ts';

const messages = [{ role: 'user', content: 'What is HTTP 402?' }];
const input = (extra: Record<string, unknown> = {}) => inference.input.parse({ model: 'openai/gpt-4.1-mini', messages, ...extra });

describe('inference', () => {
  it('sends the request to the upstream with the model\'s own completion cap, and returns its completion', async () => {
    const { llm, requests } = fakeLlm();
    const out = await inference.run(input(), fakeContext({ llm }));
    expect(out).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Pay first.' } }] });
    expect(requests).toEqual([{ model: 'openai/gpt-4.1-mini', messages, max_tokens: INFERENCE_MODELS[0].max_output_tokens }]);
    expect(inference.output.safeParse(out).success).toBe(true);
  });

  it('with stream: true, the whole stream is read first and returned as SSE events', async () => {
    const { llm } = fakeLlm();
    const out = await inference.run(input({ stream: true }), fakeContext({ llm }));
    expect(out).toBeInstanceOf(EventStreamOutput);
    const sse = (out as EventStreamOutput).toEventStream();
    expect(sse.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(sse.split('\n\n').filter(Boolean)).toHaveLength(3);
    expect(inference.output.safeParse(JSON.parse(JSON.stringify(out))).success).toBe(true);
  });

  it('metered by tokens when the operator says so: usage at the rate, rounded up; 0 tokens cost 0; otherwise the price', async () => {
    // 1.00 USD per 1,000 tokens: 39 tokens cost 0.039.
    for (const [tokens, charge] of [[39, 39_000n], [0, 0n], [1, 1000n]] as const) {
      const { llm } = fakeLlm({ totalTokens: tokens, atomicPerThousandTokens: 1_000_000n });
      const call = meteredCall();
      await inference.run(input(), fakeContext({ llm, metered: call.metered }));
      expect(call.charges, String(tokens)).toEqual([charge]);
    }
    const unmetered = meteredCall();
    await inference.run(input(), fakeContext({ llm: fakeLlm().llm, metered: unmetered.metered }));
    expect(unmetered.charges).toEqual([]);
  });

  it('takes only catalogue models; without an upstream it is our failure', async () => {
    expect(inference.input.safeParse({ model: 'no-such-model', messages }).success).toBe(false);
    expect(inference.mode).toEqual({ kind: 'upto', maximumAuthorization: '1.00' });
    await expect(inference.run(input(), fakeContext())).rejects.toThrow('no inference upstream is configured');
  });
});
