import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SafeFetchError } from '../../providers/safe-fetch.ts';
import { fakeContext, stubFetch } from '../kit/fake-context.ts';
import type { ProductContext } from '../kit/index.ts';
import { llmDouble } from '../text/llm.fixture.ts';
import { answerQuestion, extractive, type AnswerDepth } from './answer-engine.ts';
import { FIXTURE_ORIGIN, siteData, siteFetch, siteSearch } from './answer.fixture.ts';
import { answerText, checkAnswer, renumber } from './citations.ts';
import { bestSentence, rankPassages, sStem, splitPassages, terms, type Passage } from './passages.ts';

const DEPTH: AnswerDepth = { searchResults: 5, pagesRead: 3, passageChars: 500, passages: 6, perPage: 2, statements: 3 };
const QUESTION = 'What is HTTP status code 402 used for?';
const passage = (text: string, page = 0, position = 0, heading = ''): Passage => ({ page, position, text, heading });
const ctxWith = (overrides: Partial<ProductContext> = {}) => fakeContext({ data: siteData(), fetch: siteFetch(), ...overrides });

describe('passages', () => {
  it('packs sentences up to the limit, breaks at a paragraph once half full, cuts an over-long sentence, drops fragments', () => {
    const text = 'One two three four five six. Seven eight nine ten eleven.\nMenu\nTwelve thirteen fourteen fifteen sixteen.';
    expect(splitPassages(text, 80).map((p) => p.text)).toEqual(['One two three four five six. Seven eight nine ten eleven.', 'Menu Twelve thirteen fourteen fifteen sixteen.']);
    expect(splitPassages(text, 45).map((p) => p.text)).toEqual(['One two three four five six.', 'Seven eight nine ten eleven.', 'Twelve thirteen fourteen fifteen sixteen.']);
    const long = splitPassages(`${'word '.repeat(30).trim()}.`, 50, 2, 'T');
    expect(long.every((p) => p.text.length <= 50 && p.page === 2 && p.heading === 'T')).toBe(true);
    expect(long[0]!.text.endsWith('…')).toBe(true);
    expect(splitPassages('Home\nAbout us', 100)).toEqual([]);
  });

  it('terms drop stop words and plural endings (Harman\'s S-stemmer)', () => {
    expect(['networks', 'queries', 'status', 'glass', 'does', 'x402'].map(sStem)).toEqual(['network', 'query', 'status', 'glass', 'doe', 'x402']);
    expect(terms('Which networks does the x402 protocol support?')).toEqual(['network', 'x402', 'protocol', 'support']);
  });

  it('ranks by BM25: rarer terms weigh more, no match is left out, ties keep page then position', () => {
    const passages = [
      passage('The protocol supports many payment networks today.', 0, 0),
      passage('Solana and Base are the networks x402 settles on.', 1, 0),
      passage('Nothing here is about the question at all.', 1, 1),
      passage('The protocol supports many payment networks today.', 2, 0),
    ];
    const ranked = rankPassages('Which networks does x402 settle on?', passages);
    expect(ranked.map((p) => [p.page, p.position])).toEqual([[1, 0], [0, 0], [2, 0]]);
    expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score);
    expect(ranked[1]!.score).toBe(ranked[2]!.score);
    expect(ranked[0]!.coverage).toBe(1);
    expect(rankPassages('the of and', passages)).toEqual([]);
    // The page title counts with its passages.
    expect(rankPassages('Solana', [passage('Fees are low.  Blocks are fast here.', 0, 0, 'Solana overview')])).toHaveLength(1);
  });

  it('the best sentence of a passage is the one holding the question\'s terms', () => {
    expect(bestSentence('Which networks does x402 settle on?', 'It is fast. Base and Solana are the networks x402 settles on. It is open.')).toBe('Base and Solana are the networks x402 settles on.');
  });
});

describe('citation check', () => {
  const fetched = new Set(['https://docs.example.com/a']);
  const check = (value: unknown) => checkAnswer(value, 3, 2, fetched);

  it('accepts statements that each cite given passages, stripping markers from the text', () => {
    expect(check({ statements: [{ text: 'x402 uses HTTP 402 [2].', citations: [2, 2, 1] }] })).toEqual({ ok: true, value: [{ text: 'x402 uses HTTP 402.', citations: [2, 1] }] });
    expect(check({ statements: [] })).toEqual({ ok: true, value: [] });
  });

  it('refuses a number out of range, an uncited statement, a URL not fetched, a marker out of range, too many statements', () => {
    const problems = (value: unknown) => {
      const out = check(value);
      return out.ok ? [] : out.problems;
    };
    expect(problems({ statements: [{ text: 'Made up.', citations: [4] }] })).toEqual(['statement 1: cites 4, not a passage number (1 to 3)']);
    expect(problems({ statements: [{ text: 'Uncited.', citations: [] }] })[0]).toMatch(/cites no passage/);
    expect(problems({ statements: [{ text: 'Uncited.' }] })[0]).toMatch(/cites no passage/);
    expect(problems({ statements: [{ text: 'See https://elsewhere.invalid/x for more.', citations: [1] }] })[0]).toMatch(/URL that is not one/);
    expect(problems({ statements: [{ text: 'See https://docs.example.com/a.', citations: [1] }] })).toEqual([]);
    expect(problems({ statements: [{ text: 'As [9] says.', citations: [1] }] })[0]).toMatch(/\[9\]/);
    expect(problems({ statements: [1, 2, 3].map((n) => ({ text: `S${n}.`, citations: [n] })) })).toEqual(['at most 2 statements']);
    expect(problems({ answer: 'prose' })[0]).toMatch(/expected/);
  });

  it('renumbers citations by first use and writes the markers after each statement', () => {
    const { statements, order } = renumber([{ text: 'A.', citations: [3] }, { text: 'B.', citations: [1, 3] }]);
    expect(order).toEqual([3, 1]);
    expect(answerText(statements)).toBe('A. [1] B. [2][1]');
  });
});

describe('the answer engine, extractive (no inference upstream)', () => {
  it('searches, reads the top pages (a failing one replaced by the next), cites only fetched passages', async () => {
    const search = siteSearch();
    const fetch = siteFetch();
    const out = await answerQuestion(`  ${QUESTION}  `, DEPTH, ctxWith({ data: siteData(search), fetch }));
    expect(search.queries).toEqual([QUESTION]);
    expect(fetch.requests.map((r) => r.url.replace(FIXTURE_ORIGIN, ''))).toEqual(['/http/status/402', '/x402/how-it-works', '/http/status/broken', '/http/status/404']);
    expect(out).toMatchObject({ question: QUESTION, method: 'extractive', no_answer: null, search: { provider: 'SearXNG', results: 4 } });
    expect(out.pages.map((p) => [p.read, p.problem])).toEqual([[true, null], [true, null], [false, 'the page answered HTTP 500'], [true, null]]);
    expect(out.citations.map((c) => c.number)).toEqual([1, 2]);
    for (const citation of out.citations) {
      expect(fetch.requests.map((r) => r.url)).toContain(citation.url);
      expect(citation.quote.length).toBeLessThanOrEqual(DEPTH.passageChars);
    }
    for (const s of out.statements) {
      expect(s.citations.length).toBeGreaterThan(0);
      expect(out.citations[s.citations[0]! - 1]!.quote).toContain(s.text);
    }
    expect(out.answer).toBe(answerText(out.statements));
  });

  it('leaves out passages that hold less than half the question\'s term weight, and repeated sentences', () => {
    const ranked = rankPassages('Which networks does x402 settle on?', [passage('x402 settles on Base and Solana networks.', 0), passage('Many networks exist.', 1), passage('x402 settles on Base and Solana networks.', 2)]);
    expect(extractive('Which networks does x402 settle on?', ranked, { statements: 3 })).toEqual([{ text: 'x402 settles on Base and Solana networks.', citations: [1] }]);
  });

  it('no results, or nothing matching, is an answer of null saying why; nothing readable is 502', async () => {
    const none = await answerQuestion('nothing matches this', DEPTH, ctxWith());
    expect(none).toMatchObject({ answer: null, citations: [], statements: [], no_answer: { reason: 'no_search_results' }, pages: [] });
    const unrelated = await answerQuestion('Which volcano erupted in Iceland?', DEPTH, ctxWith());
    expect(unrelated).toMatchObject({ answer: null, citations: [], no_answer: { reason: 'no_matching_passage' } });
    const dead = stubFetch({});
    await expect(answerQuestion(QUESTION, DEPTH, ctxWith({ fetch: dead }))).rejects.toMatchObject({ name: 'UpstreamError', status: 502 });
    expect(dead.requests).toHaveLength(4);
    const refused = stubFetch(Object.fromEntries(['/http/status/402', '/x402/how-it-works', '/http/status/broken', '/http/status/404'].map((p) => [`${FIXTURE_ORIGIN}${p}`, new SafeFetchError('timeout', 'slow')])));
    await expect(answerQuestion(QUESTION, DEPTH, ctxWith({ fetch: refused }))).rejects.toThrow(/could be read \(fetch failed: timeout\)/);
  });
});

describe('the answer engine with the model (OpenAI-wire double)', () => {
  let t: Awaited<ReturnType<typeof llmDouble>>;
  beforeAll(async () => void (t = await llmDouble()));
  afterAll(() => t.double.close());
  const llmCtx = () => ctxWith({ llm: t.ctx().llm! });

  it('the model writes from the numbered passages only; its citations are renumbered to the fetched pages', async () => {
    t.double.reply = () => '{"statements": [{"text": "HTTP reserved 402 for future payments.", "citations": [2]}, {"text": "x402 answers 402 with payment requirements.", "citations": [1, 2]}]}';
    const out = await answerQuestion(QUESTION, DEPTH, llmCtx());
    const prompt = t.messagesOf(-1);
    expect(prompt[0]!.content).toMatch(/only the numbered passages/);
    expect(prompt[1]!.content).toContain(`[1] 402 Payment Required | Example Docs (${FIXTURE_ORIGIN}/http/status/402)`);
    expect(out).toMatchObject({ method: 'llm', model: 'openai/gpt-4.1-mini', no_answer: null });
    expect(out.statements).toEqual([{ text: 'HTTP reserved 402 for future payments.', citations: [1] }, { text: 'x402 answers 402 with payment requirements.', citations: [2, 1] }]);
    expect(out.citations.map((c) => c.url)).toEqual([`${FIXTURE_ORIGIN}/x402/how-it-works`, `${FIXTURE_ORIGIN}/http/status/402`]);
    expect(out.answer).toBe('HTTP reserved 402 for future payments. [1] x402 answers 402 with payment requirements. [2][1]');
  });

  it('a hallucinated citation is asked again once, then fails (502, never sold)', async () => {
    t.double.reply = () => '{"statements": [{"text": "402 is used by payment systems.", "citations": [7]}]}';
    const before = t.double.requests.length;
    await expect(answerQuestion(QUESTION, DEPTH, llmCtx())).rejects.toMatchObject({ name: 'UpstreamError', status: 502 });
    expect(t.double.requests.length - before).toBe(2);
    expect(t.messagesOf(-1).at(-1)!.content).toMatch(/cites 7, not a passage number/);
    let asked = 0;
    t.double.reply = () => (asked++ === 0 ? '{"statements": [{"text": "Uncited."}]}' : '{"statements": [{"text": "402 means payment required.", "citations": [1]}]}');
    expect((await answerQuestion(QUESTION, DEPTH, llmCtx())).statements).toEqual([{ text: '402 means payment required.', citations: [1] }]);
  });

  it('passages that do not answer are `not_in_sources`', async () => {
    t.double.reply = () => '{"statements": []}';
    expect(await answerQuestion(QUESTION, DEPTH, llmCtx())).toMatchObject({ answer: null, method: 'llm', model: 'openai/gpt-4.1-mini', citations: [], no_answer: { reason: 'not_in_sources' } });
  });
});
