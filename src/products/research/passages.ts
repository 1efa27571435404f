/**
 * Passages of fetched pages and their ranking against a question, for the answer products.
 *
 * Splitting: a page's text is cut into sentences (the ICU segmenter, text/sentences.ts), and
 * consecutive sentences are packed into passages of at most `maxChars`; a paragraph break ends a
 * passage once it is half full, and a sentence longer than `maxChars` is cut at a word boundary.
 * Passages of fewer than 5 words (menus, captions) are dropped.
 *
 * Ranking: Okapi BM25 (k1 = 1.2, b = 0.75, Lucene's idf ln(1 + (N − df + 0.5) / (df + 0.5))) over
 * all passages of the call (each with its page title), the question's terms as the query. Terms are words without stop words,
 * reduced by Harman's S-stemmer (`networks` → `network`, `queries` → `query`). Deterministic: ties
 * keep page rank, then position in the page.
 */
import { splitSentences, words } from '../text/sentences.ts';
import { isStopWord } from '../text/stopwords.ts';

export interface Passage {
  /** Index of the page (in the order pages were read). */
  page: number;
  /** Position of the passage within its page, from 0. */
  position: number;
  text: string;
  /** The page title, ranked with the passage (a title names what each of its passages is about). */
  heading: string;
}

export interface RankedPassage extends Passage {
  /** BM25 score. */
  score: number;
  /** Share of the idf weight of the question's terms found in any passage that this one holds, 0 to 1. */
  coverage: number;
}

const MIN_WORDS = 5;
const K1 = 1.2;
const B = 0.75;

/** Harman's S-stemmer (1991): plural endings only, so stems stay words. */
export function sStem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('es') && !word.endsWith('aes') && !word.endsWith('ees') && !word.endsWith('oes')) return word.slice(0, -1);
  if (word.endsWith('s') && !word.endsWith('us') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The ranking terms of a text, in order: stemmed words that are not stop words. */
export function terms(text: string): string[] {
  return words(text)
    .filter((w) => !isStopWord(w))
    .map(sStem);
}

/** Cuts a page's text into passages of at most `maxChars`. */
export function splitPassages(text: string, maxChars: number, page = 0, heading = ''): Passage[] {
  const passages: string[] = [];
  let current = '';
  const flush = () => {
    if (current !== '') passages.push(current);
    current = '';
  };
  for (const block of text.split(/\n+/)) {
    if (current.length >= maxChars / 2) flush();
    for (const sentence of splitSentences(block)) {
      for (const piece of cut(sentence, maxChars)) {
        if (current !== '' && current.length + 1 + piece.length > maxChars) flush();
        current = current === '' ? piece : `${current} ${piece}`;
      }
    }
  }
  flush();
  return passages.filter((p) => words(p).length >= MIN_WORDS).map((p, position) => ({ page, position, text: p, heading }));
}

/** A sentence as pieces of at most `maxChars`, cut at word boundaries (an ellipsis marks a cut). */
function cut(sentence: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let rest = sentence;
  while (rest.length > maxChars) {
    const space = rest.lastIndexOf(' ', maxChars - 1);
    const at = space > maxChars / 2 ? space : maxChars - 1;
    pieces.push(`${rest.slice(0, at).trimEnd()}…`);
    rest = rest.slice(at).trimStart();
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

/** Passages scored by BM25 against the question, best first; passages that match no term are left out. */
export function rankPassages(question: string, passages: readonly Passage[]): RankedPassage[] {
  const query = [...new Set(terms(question))];
  if (query.length === 0 || passages.length === 0) return [];
  const docs = passages.map((p) => counts(terms(`${p.heading}\n${p.text}`)));
  const lengths = docs.map((d) => d.length);
  const average = lengths.reduce((a, b) => a + b, 0) / passages.length || 1;
  const idf = new Map(query.map((t) => [t, inverseFrequency(docs.filter((d) => d.tf.has(t)).length, passages.length)]));
  const found = query.filter((t) => docs.some((d) => d.tf.has(t))).reduce((sum, t) => sum + idf.get(t)!, 0);
  return passages
    .map((passage, i) => {
      const { tf, length } = docs[i]!;
      let score = 0;
      let held = 0;
      for (const t of query) {
        const f = tf.get(t) ?? 0;
        if (f === 0) continue;
        score += idf.get(t)! * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * length) / average)));
        held += idf.get(t)!;
      }
      return { ...passage, score: round(score), coverage: found > 0 ? round(held / found) : 0 };
    })
    .filter((p) => p.score > 0)
    .sort((a, b) => b.score - a.score || a.page - b.page || a.position - b.position);
}

/**
 * The passage's sentence that best matches the question: the one whose distinct question terms
 * weigh most (idf over the passage's sentences); ties keep the earliest.
 */
export function bestSentence(question: string, passage: string): string {
  const query = new Set(terms(question));
  const sentences = splitSentences(passage);
  const sets = sentences.map((s) => new Set(terms(s)));
  let best = 0;
  let bestScore = -1;
  sets.forEach((set, i) => {
    let score = 0;
    for (const t of query) if (set.has(t)) score += inverseFrequency(sets.filter((s) => s.has(t)).length, sets.length);
    if (score > bestScore) [best, bestScore] = [i, score];
  });
  return sentences[best] ?? passage;
}

function counts(list: string[]): { tf: Map<string, number>; length: number } {
  const tf = new Map<string, number>();
  for (const t of list) tf.set(t, (tf.get(t) ?? 0) + 1);
  return { tf, length: list.length };
}

const inverseFrequency = (df: number, n: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
const round = (x: number) => Math.round(x * 10_000) / 10_000;
