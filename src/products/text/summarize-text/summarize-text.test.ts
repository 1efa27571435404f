import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { UpstreamError } from '../../kit/index.ts';
import { llmDouble } from '../llm.fixture.ts';
import { EXTRACTED_SENTENCES, summarizeText } from './index.ts';
import { rankSentences, topSentences } from './textrank.ts';

const TEXT = `Coral reefs cover less than one percent of the ocean floor but shelter a quarter of all marine species. Rising sea temperatures cause coral bleaching: stressed corals expel the algae that feed them and turn white. Repeated bleaching events leave reefs too weak to recover. Ocean acidification, driven by carbon dioxide dissolving in seawater, slows the growth of coral skeletons. The first reef survey of the region took place in 1973. Marine biologists now grow heat-tolerant corals in nurseries to restore damaged reefs.`;

const run = (input: Record<string, unknown>, ctx = fakeContext()) => summarizeText.run(summarizeText.input.parse({ text: TEXT, ...input }), ctx);

describe('summarize-text (extractive, TextRank)', () => {
  it('picks the documented top-ranked sentences, in text order, as many as the format takes', async () => {
    const { sentences } = rankSentences(TEXT);
    for (const format of ['bullets', 'paragraph', 'one_liner'] as const) {
      const out = await run({ format });
      const expected = topSentences(sentences, EXTRACTED_SENTENCES[format]);
      expect(out.points, format).toEqual(expected.map((s) => s.text));
      // Every chosen sentence ranks at least as high as every sentence left out.
      const chosen = new Set(expected.map((s) => s.index));
      const lowestChosen = Math.min(...expected.map((s) => s.score));
      expect(sentences.filter((s) => !chosen.has(s.index)).every((s) => s.score <= lowestChosen), format).toBe(true);
      expect(summarizeText.output.safeParse(out).success).toBe(true);
    }
  });

  it('is stable for a fixed text: the central sentences, not the aside', async () => {
    const out = await run({ format: 'paragraph' });
    expect(out.sentences!.map((s) => s.index)).toEqual([0, 2, 5]);
    expect(out.points).not.toContain('The first reef survey of the region took place in 1973.');
    expect(out.method).toBe('textrank');
    const bullets = await run({ format: 'bullets' });
    expect(bullets.summary.split('\n').every((line) => line.startsWith('- '))).toBe(true);
    expect(summarizeText.outputExample).toEqual(await summarizeText.run(summarizeText.input.parse(summarizeText.inputExample), fakeContext()));
  });

  it('without an upstream the abstractive mode is refused before payment (422 llm_not_configured)', async () => {
    await expect(summarizeText.precheck!(summarizeText.input.parse({ text: TEXT, mode: 'abstractive' }), { now: new Date() })).rejects.toMatchObject({ status: 422, code: 'llm_not_configured' });
  });
});

describe('summarize-text (abstractive, against the OpenAI-wire double)', () => {
  let t: Awaited<ReturnType<typeof llmDouble>>;
  beforeAll(async () => void (t = await llmDouble()));
  afterAll(() => t.double.close());

  it('asks the text model for the format and returns its points', async () => {
    t.double.reply = () => '```json\n{"points": ["Warming seas bleach corals.", "Acidification slows their growth."]}\n```';
    const out = await run({ format: 'bullets', mode: 'abstractive' }, t.ctx());
    expect(out).toEqual({ summary: '- Warming seas bleach corals.\n- Acidification slows their growth.', points: ['Warming seas bleach corals.', 'Acidification slows their growth.'], format: 'bullets', method: 'llm', model: 'openai/gpt-4.1-mini' });
    expect(t.double.requests.at(-1)!.body).toMatchObject({ model: 'openai/gpt-4.1-mini', temperature: 0 });
  });

  it('an answer that never has the asked shape is the upstream\'s failure (502)', async () => {
    t.double.reply = () => 'Here is a summary: corals are in trouble.';
    const before = t.double.requests.length;
    await expect(run({ mode: 'abstractive' }, t.ctx())).rejects.toMatchObject({ name: 'UpstreamError', status: 502 });
    expect(t.double.requests.length - before).toBe(2);
    await expect(run({ mode: 'abstractive' }, t.ctx())).rejects.toBeInstanceOf(UpstreamError);
  });
});
