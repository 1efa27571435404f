import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llmDouble } from '../llm.fixture.ts';
import { classifyText } from './index.ts';

const labels = ['bug report', 'feature request', 'praise'];
const input = (extra: Record<string, unknown> = {}) => classifyText.input.parse({ text: 'The payment settled but the API returned 500.', labels, ...extra });

describe('classify-text (against the OpenAI-wire double)', () => {
  let t: Awaited<ReturnType<typeof llmDouble>>;
  beforeAll(async () => void (t = await llmDouble()));
  afterAll(() => t.double.close());

  it('needs the upstream, and bounds its labels: 2 to 20, distinct', () => {
    expect(classifyText.requires).toEqual(['llm']);
    expect(classifyText.input.safeParse({ text: 'x', labels: ['one'] }).success).toBe(false);
    expect(classifyText.input.safeParse({ text: 'x', labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }).success).toBe(false);
    const duplicate = classifyText.input.safeParse({ text: 'x', labels: ['Bug', 'bug'] });
    expect(duplicate.success).toBe(false);
    expect(duplicate.error!.issues[0]!.path).toEqual(['labels']);
  });

  it('single label: scores normalised to a distribution, best first, one chosen', async () => {
    t.double.reply = () => '{"scores": {"bug report": 0.8, "feature request": 0.15, "praise": 0.05}}';
    const out = await classifyText.run(input(), t.ctx());
    expect(out).toEqual({
      label: 'bug report',
      chosen: ['bug report'],
      scores: [
        { label: 'bug report', score: 0.8 },
        { label: 'feature request', score: 0.15 },
        { label: 'praise', score: 0.05 },
      ],
      multi_label: false,
      method: 'llm',
      model: 'openai/gpt-4.1-mini',
    });
    expect(classifyText.output.safeParse(out).success).toBe(true);
  });

  it('multi label: every label at 0.5 or more is chosen', async () => {
    t.double.reply = () => '{"scores": {"bug report": 0.9, "feature request": 0.6, "praise": 0.1}}';
    const out = await classifyText.run(input({ multi_label: true }), t.ctx());
    expect(out.chosen).toEqual(['bug report', 'feature request']);
  });

  it('an answer missing a label is asked again once with what was wrong', async () => {
    let calls = 0;
    t.double.reply = () => (++calls === 1 ? '{"scores": {"bug report": 0.9}}' : '{"scores": {"bug report": 0.7, "feature request": 0.2, "praise": 0.1}}');
    const out = await classifyText.run(input(), t.ctx());
    expect(out.label).toBe('bug report');
    expect(calls).toBe(2);
    expect(t.messagesOf(-1).at(-1)!.content).toContain('label "feature request" needs a score from 0 to 1');
  });
});
