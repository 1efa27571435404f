import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { ProductInputError } from '../../kit/index.ts';
import { llmDouble } from '../llm.fixture.ts';
import { isTopic, sentiment } from './index.ts';
import { labelOf, lexiconSentiment } from './lexicon.ts';

/** Sentences labelled by a reader, with negation, intensifiers, dampeners and contrast among them. */
const LABELLED: readonly [string, 'positive' | 'neutral' | 'negative'][] = [
  ['The checkout was fast and painless.', 'positive'],
  ['I love how simple the API is.', 'positive'],
  ['The documentation is extremely helpful.', 'positive'],
  ['Not bad at all for the price.', 'positive'],
  ['The support team was kind and responsive.', 'positive'],
  ['The first call failed, but the retry worked perfectly.', 'positive'],
  ['Great latency and very reliable settlements!', 'positive'],
  ['The service is not good.', 'negative'],
  ['This is the worst dashboard I have used.', 'negative'],
  ['Payments kept failing and nobody helped.', 'negative'],
  ['The setup was painful and confusing.', 'negative'],
  ['It is slightly disappointing.', 'negative'],
  ['I hate waiting for settlements.', 'negative'],
  ['The fees are terrible.', 'negative'],
  ['The invoice was sent on Tuesday.', 'neutral'],
  ['The endpoint returns JSON.', 'neutral'],
  ['We deployed version 2.1 to Base.', 'neutral'],
  ['The response includes a transaction hash.', 'neutral'],
  ['Each call costs one cent.', 'neutral'],
  ['The server runs in Frankfurt.', 'neutral'],
];

describe('sentiment (lexicon)', () => {
  it('labels the labelled sentences with at least 85% accuracy', () => {
    const right = LABELLED.filter(([text, label]) => labelOf(lexiconSentiment(text).score) === label).length;
    expect(right / LABELLED.length).toBeGreaterThanOrEqual(0.85);
  });

  it('negation and intensifiers move the score', () => {
    const score = (t: string) => lexiconSentiment(t).score;
    expect(score('The service is good.')).toBeGreaterThan(0);
    expect(score('The service is not good.')).toBeLessThan(0);
    expect(score('The service is extremely good.')).toBeGreaterThan(score('The service is good.'));
    expect(score('The service is slightly good.')).toBeLessThan(score('The service is good.'));
  });

  it('returns the three signals with the sentences behind them, stable for a fixed text', async () => {
    const out = await sentiment.run(sentiment.input.parse(sentiment.inputExample), fakeContext());
    expect(out).toEqual(sentiment.outputExample);
    expect(out).toMatchObject({ method: 'vader', label: 'positive', signals: { negative: { count: 1, sentences: [{ text: 'The dashboard is slow and confusing.' }] } } });
    expect(sentiment.output.safeParse(out).success).toBe(true);
  });

  it('a topic needs a web-search provider: 422 topic_search_not_configured before payment', async () => {
    expect(isTopic({ query: 'ETH', query_type: 'auto' })).toBe(true);
    expect(isTopic({ query: 'ETH', query_type: 'text' })).toBe(false);
    expect(isTopic({ query: 'I love it.', query_type: 'auto' })).toBe(false);
    const refusal = await sentiment.precheck!(sentiment.input.parse({ query: 'ETH' }), { now: new Date() }).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ status: 422, code: 'topic_search_not_configured', field: 'query' });
    await expect(sentiment.run(sentiment.input.parse({ query: 'Base fees' }), fakeContext())).rejects.toBeInstanceOf(ProductInputError);
  });

  it('a topic with a web-search provider: the results scored one by one, with the results behind the figures', async () => {
    const searched: [string, number][] = [];
    const webSearch = {
      search: async (query: string, limit: number) => {
        searched.push([query, limit]);
        return {
          provider: 'SearXNG',
          results: [
            { title: 'Base fees are great', url: 'https://a.invalid/1', snippet: 'Users love the cheap and fast transactions.', published_at: null, source: 'a.invalid' },
            { title: 'Base outage', url: 'https://b.invalid/2', snippet: 'The network was down and payments failed badly.', published_at: null, source: 'b.invalid' },
            { title: 'Base fee schedule', url: 'https://c.invalid/3', snippet: 'The schedule changes on Monday.', published_at: null, source: 'c.invalid' },
          ],
        };
      },
    };
    const ctx = fakeContext({ data: { webSearch } as never });
    await expect(sentiment.precheck!(sentiment.input.parse({ query: 'Base fees' }), { now: new Date(), data: ctx.data })).resolves.toBeUndefined();
    const out = (await sentiment.run(sentiment.input.parse({ query: ' Base fees ' }), ctx)) as { query_type: string; provider: string; sources: { url: string; score: number }[]; signals: Record<string, { count: number }>; sentences: number };
    expect(searched).toEqual([['Base fees', 10]]);
    expect(out).toMatchObject({ query_type: 'topic', method: 'vader', provider: 'SearXNG', sentences: 3 });
    expect(out.sources.map((s) => s.url)).toEqual(['https://a.invalid/1', 'https://b.invalid/2', 'https://c.invalid/3']);
    expect(out.sources.map((s) => Math.sign(s.score))).toEqual([1, -1, 0]);
    expect([out.signals.positive!.count, out.signals.negative!.count, out.signals.neutral!.count]).toEqual([1, 1, 1]);
    expect(sentiment.output.safeParse(out).success).toBe(true);
    await expect(sentiment.precheck!(sentiment.input.parse({ query: 'Base fees', mode: 'llm' }), { now: new Date(), data: ctx.data })).rejects.toMatchObject({ status: 422, field: 'mode' });
  });

  it('the llm mode needs the upstream (422 llm_not_configured), and other languages are refused by the lexicon', async () => {
    await expect(sentiment.precheck!(sentiment.input.parse({ query: 'I love it.', mode: 'llm' }), { now: new Date() })).rejects.toMatchObject({ code: 'llm_not_configured', field: 'mode' });
    await expect(sentiment.precheck!(sentiment.input.parse({ query: 'Le service est vraiment très bon et rapide, je suis content.' }), { now: new Date() })).rejects.toMatchObject({ code: 'unsupported_language', message: expect.stringContaining('French') });
  });
});

describe('sentiment (llm mode, against the OpenAI-wire double)', () => {
  let t: Awaited<ReturnType<typeof llmDouble>>;
  beforeAll(async () => void (t = await llmDouble()));
  afterAll(() => t.double.close());

  it('returns the model\'s score and reasons, any language', async () => {
    t.double.reply = () => '{"score": -0.6, "reasons": ["The customer says the service is slow."]}';
    const out = await sentiment.run(sentiment.input.parse({ query: 'Le service est lent. Je suis déçu.', mode: 'llm' }), t.ctx());
    expect(out).toEqual({ query_type: 'text', method: 'llm', label: 'negative', score: -0.6, reasons: ['The customer says the service is slow.'], model: 'openai/gpt-4.1-mini' });
    expect(t.messagesOf(-1)[1]!.content).toContain('<text>\nLe service est lent.');
    expect(sentiment.output.safeParse(out).success).toBe(true);
  });
});
