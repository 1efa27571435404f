import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llmDouble } from '../llm.fixture.ts';
import { rewriteText } from './index.ts';

describe('rewrite-text (against the OpenAI-wire double)', () => {
  let t: Awaited<ReturnType<typeof llmDouble>>;
  beforeAll(async () => void (t = await llmDouble()));
  afterAll(() => t.double.close());

  it('sends the instruction and the fenced text, returns the model\'s rewrite', async () => {
    t.double.reply = () => 'Hello, the API appears to be unavailable again. Could you please look into it?';
    const out = await rewriteText.run(rewriteText.input.parse(rewriteText.inputExample), t.ctx());
    expect(out).toEqual(rewriteText.outputExample);
    const [system, user] = t.messagesOf(-1);
    expect(system!.content).toContain('"polite and formal"');
    expect(user!.content).toBe('<text>\nhey, the api is down again, pls fix\n</text>');
    expect(rewriteText.requires).toEqual(['llm']);
  });

  it('an upstream failure is 502, a timeout 504, and its text never shows', async () => {
    t.double.failWith = 500;
    try {
      const error = await rewriteText.run(rewriteText.input.parse({ text: 'hi' }), t.ctx()).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'UpstreamError', status: 502 });
      expect(String((error as Error).message)).not.toContain('sk-secret');
    } finally {
      t.double.failWith = undefined;
    }
  });
});
