import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { fakeLlm } from '../chat.fixture.ts';
import { chatCompletion } from './index.ts';

describe('chat-completion', () => {
  it('one completion at the price (upto 1.00 accepted, as the OpenAI door sells it), on the same upstream as inference', async () => {
    expect(chatCompletion.mode).toEqual({ kind: 'upto', maximumAuthorization: '1.00' });
    expect(chatCompletion.requires).toEqual(['llm']);
    const { llm, requests } = fakeLlm();
    const out = await chatCompletion.run(chatCompletion.input.parse({ model: 'anthropic/claude-sonnet-4', messages: [{ role: 'user', content: 'hi' }] }), fakeContext({ llm }));
    expect(out).toMatchObject({ object: 'chat.completion' });
    expect(requests[0]?.model).toBe('anthropic/claude-sonnet-4');
    expect(chatCompletion.output.safeParse(out).success).toBe(true);
  });
});
