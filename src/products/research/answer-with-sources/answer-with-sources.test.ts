import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { siteData, siteFetch } from '../answer.fixture.ts';
import { RESEARCH_ANSWER_DEPTH } from '../research-answer/index.ts';
import { answerWithSources, ANSWER_WITH_SOURCES_DEPTH } from './index.ts';

describe('answer-with-sources', () => {
  it('answers its published example (captured against the fixture site), reading every result', async () => {
    const fetch = siteFetch();
    const out = await answerWithSources.run(answerWithSources.input.parse(answerWithSources.inputExample), fakeContext({ data: siteData(), fetch }));
    expect(out).toEqual(answerWithSources.outputExample);
    expect(fetch.requests).toHaveLength(4);
    expect(answerWithSources.output.safeParse(out).success).toBe(true);
  });

  it('reads deeper than research-answer', () => {
    for (const key of Object.keys(ANSWER_WITH_SOURCES_DEPTH) as (keyof typeof ANSWER_WITH_SOURCES_DEPTH)[]) {
      expect(ANSWER_WITH_SOURCES_DEPTH[key], key).toBeGreaterThan(RESEARCH_ANSWER_DEPTH[key]);
    }
  });

  it('refuses an empty, blank or over-long question, naming `question`', () => {
    for (const question of ['', ' \n ', 'q'.repeat(401)]) expect(answerWithSources.input.safeParse({ question }).error!.issues[0]!.path).toEqual(['question']);
    expect(answerWithSources.input.safeParse({ question: 42 }).error!.issues[0]!.path).toEqual(['question']);
  });
});
