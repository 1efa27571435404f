/**
 * RAKE (Rose et al., "Automatic keyword extraction from individual documents", 2010): candidate
 * phrases are the runs of words between stop words, verb-like words and punctuation (at most 3 words: a longer run, a clause rather than a keyword, is cut into balanced pieces); a word scores
 * its degree over its frequency, a phrase the sum of its words. Higher is more relevant. Kept beside
 * YAKE because the choice between them is measured (see extract-keywords.test.ts).
 */
import { isStopWord } from '../stopwords.ts';
import { chunks, isNoise, verbLike } from './tokens.ts';
import { distinct, type RankedKeyword } from './yake.ts';

const MAX_WORDS = 3;

export function rake(text: string, max: number): RankedKeyword[] {
  const phrases: string[][] = [];
  const parts = chunks(text).chunks;
  const verbs = verbLike(parts);
  for (const chunk of parts) {
    let run: string[] = [];
    for (const { key } of [...chunk, { key: '' }]) {
      if (key === '' || isNoise(key, isStopWord) || verbs.has(key)) {
        // A longer run is a clause, not a keyword: it is cut into balanced pieces of at most MAX_WORDS.
        const pieces = Math.ceil(run.length / MAX_WORDS);
        for (let i = 0, start = 0; i < pieces; i++) {
          const end = Math.round(((i + 1) * run.length) / pieces);
          phrases.push(run.slice(start, end));
          start = end;
        }
        run = [];
      } else run.push(key);
    }
  }
  const frequency = new Map<string, number>();
  const degree = new Map<string, number>();
  for (const phrase of phrases) {
    for (const word of phrase) {
      frequency.set(word, (frequency.get(word) ?? 0) + 1);
      degree.set(word, (degree.get(word) ?? 0) + phrase.length);
    }
  }
  const scores = new Map<string, number>();
  for (const phrase of phrases) scores.set(phrase.join(' '), phrase.reduce((sum, w) => sum + degree.get(w)! / frequency.get(w)!, 0));
  const ranked = [...scores.entries()].map(([keyword, raw]) => ({ keyword, raw }));
  ranked.sort((a, b) => b.raw - a.raw || a.keyword.localeCompare(b.keyword));
  return distinct(ranked, max);
}
