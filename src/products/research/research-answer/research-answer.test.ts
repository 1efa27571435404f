import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { siteData, siteFetch } from '../answer.fixture.ts';
import { researchAnswer, RESEARCH_ANSWER_DEPTH } from './index.ts';

const ctx = () => fakeContext({ data: siteData(), fetch: siteFetch() });

describe('research-answer', () => {
  it('answers its published example (captured against the fixture site), reading 3 pages', async () => {
    const fetch = siteFetch();
    const out = await researchAnswer.run(researchAnswer.input.parse(researchAnswer.inputExample), fakeContext({ data: siteData(), fetch }));
    expect(out).toEqual(researchAnswer.outputExample);
    expect(out.pages.filter((p) => p.read)).toHaveLength(RESEARCH_ANSWER_DEPTH.pagesRead);
    expect(researchAnswer.output.safeParse(out).success).toBe(true);
  });

  it('refuses an empty, blank or over-long question, naming `question`', () => {
    for (const question of ['', '   ', 'q'.repeat(401)]) {
      const parsed = researchAnswer.input.safeParse({ question });
      expect(parsed.success, JSON.stringify(question.slice(0, 5))).toBe(false);
      expect(parsed.error!.issues[0]!.path).toEqual(['question']);
    }
    expect(researchAnswer.input.safeParse({}).error!.issues[0]!.path).toEqual(['question']);
  });

  it('is sold only with a web-search provider; the model is optional', async () => {
    expect(researchAnswer.requires).toEqual(['web-search']);
    expect((await researchAnswer.run({ question: 'nothing matches this' }, ctx())).no_answer).toMatchObject({ reason: 'no_search_results' });
  });
});
