import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { ProductInputError } from '../../kit/index.ts';
import { extractKeywords } from './index.ts';
import { LABELLED_DOCUMENTS } from './labelled.fixture.ts';
import { rake } from './rake.ts';
import { fold } from './tokens.ts';
import { yake, type RankedKeyword } from './yake.ts';

/** The match rule of labelled.fixture.ts: equal, or (phrases only) one contains the other as whole words. */
function matches(predicted: string, labels: readonly string[]): boolean {
  const p = ` ${fold(predicted)} `;
  return labels.some((label) => {
    const l = ` ${fold(label)} `;
    return p === l || (predicted.includes(' ') && (p.includes(l) || l.includes(p)));
  });
}

function precisionAt5(engine: (text: string, max: number) => RankedKeyword[]): number {
  const hits = LABELLED_DOCUMENTS.reduce((sum, doc) => sum + engine(doc.text, 5).filter((k) => matches(k.keyword, doc.labels)).length, 0);
  return hits / (5 * LABELLED_DOCUMENTS.length);
}

describe('extract-keywords', () => {
  it('RAKE is the engine because it measures better than YAKE at precision@5 on the labelled set', () => {
    const measured = { rake: precisionAt5(rake), yake: precisionAt5(yake) };
    // Measured when the engine was chosen: RAKE 0.58, YAKE 0.46.
    expect(measured.rake).toBeGreaterThanOrEqual(0.55);
    expect(measured.rake).toBeGreaterThan(measured.yake);
  });

  it('ranks keywords with relative scores, stable for a fixed input, and says its method', async () => {
    const doc = LABELLED_DOCUMENTS[3]!;
    const out = await extractKeywords.run(extractKeywords.input.parse({ text: doc.text, max_keywords: 5 }), fakeContext());
    expect(out).toEqual({
      keywords: [
        { keyword: 'new row version', score: 1 },
        { keyword: 'postgresql uses multiversion', score: 1 },
        { keyword: 'transaction id wraparound', score: 1 },
        { keyword: 'autovacuum runs', score: 0.444444 },
        { keyword: 'concurrency control', score: 0.444444 },
      ],
      method: 'rake',
      language: 'eng',
    });
    expect(await extractKeywords.run(extractKeywords.input.parse({ text: doc.text, max_keywords: 5 }), fakeContext())).toEqual(out);
    expect(extractKeywords.output.safeParse(out).success).toBe(true);
    expect(extractKeywords.outputExample).toEqual(await extractKeywords.run(extractKeywords.input.parse(extractKeywords.inputExample), fakeContext()));
  });

  it('refuses a text in another language before payment, naming it (422 unsupported_language)', async () => {
    const german = extractKeywords.input.parse({ text: 'Der Dienst ist wirklich sehr gut und schnell, und die Dokumentation ist ausgezeichnet.' });
    const refusal = await extractKeywords.precheck!(german, { now: new Date() }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ProductInputError);
    expect(refusal).toMatchObject({ status: 422, code: 'unsupported_language', field: 'text', message: expect.stringContaining('German (deu)') });
    // Too short to tell: taken as English.
    await expect(extractKeywords.precheck!(extractKeywords.input.parse({ text: 'Gut' }), { now: new Date() })).resolves.toBeUndefined();
  });

  it('bounds its input: text length and keyword count', () => {
    expect(extractKeywords.input.safeParse({ text: 'x'.repeat(100_001) }).success).toBe(false);
    expect(extractKeywords.input.safeParse({ text: 'ok', max_keywords: 51 }).success).toBe(false);
  });
});
