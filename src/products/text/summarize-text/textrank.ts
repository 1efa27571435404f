/**
 * TextRank (Mihalcea & Tarau, "TextRank: Bringing Order into Texts", 2004) for sentence extraction:
 * sentences are the nodes of a graph whose edges weigh their word overlap, normalised by their
 * lengths (|Si ∩ Sj| / (log|Si| + log|Sj|)), over content words (no stop words, plurals folded);
 * PageRank (damping 0.85) ranks them. Ties go to the earlier sentence. No npm package fits: the
 * summarizers there are unmaintained and pull in large NLP libraries for this page of code.
 */
import { splitSentences, words } from '../sentences.ts';
import { isStopWord } from '../stopwords.ts';
import { fold } from '../extract-keywords/tokens.ts';

/** Sentences beyond this many are not ranked (the graph is quadratic); the summary says so. */
export const MAX_RANKED_SENTENCES = 1_000;
const DAMPING = 0.85;
const ITERATIONS = 100;
const TOLERANCE = 1e-9;

export interface RankedSentence {
  /** Position in the text, from 0. */
  index: number;
  text: string;
  score: number;
}

/** Every sentence considered with its TextRank score, in text order; and how many the text has. */
export function rankSentences(text: string): { sentences: RankedSentence[]; total: number } {
  const all = splitSentences(text);
  const sentences = all.slice(0, MAX_RANKED_SENTENCES);
  const bags = sentences.map((s) => new Set(words(s).filter((w) => !isStopWord(w) && /\p{L}/u.test(w)).map(fold)));
  const n = sentences.length;
  // Only pairs that share a word can have an edge: found through the words, not all n² pairs.
  const holders = new Map<string, number[]>();
  bags.forEach((bag, i) =>
    bag.forEach((w) => {
      const list = holders.get(w);
      if (list) list.push(i);
      else holders.set(w, [i]);
    }),
  );
  const overlap = new Map<number, number>();
  for (const list of holders.values()) {
    for (let a = 0; a < list.length; a++) for (let b = a + 1; b < list.length; b++) overlap.set(list[a]! * n + list[b]!, (overlap.get(list[a]! * n + list[b]!) ?? 0) + 1);
  }
  const edges: { from: number; weight: number }[][] = Array.from({ length: n }, () => []);
  const outSum = new Array<number>(n).fill(0);
  for (const [key, shared] of overlap) {
    const i = Math.floor(key / n);
    const j = key % n;
    const norm = Math.log(bags[i]!.size) + Math.log(bags[j]!.size);
    if (norm <= 0) continue;
    const weight = shared / norm;
    edges[i]!.push({ from: j, weight });
    edges[j]!.push({ from: i, weight });
    outSum[i]! += weight;
    outSum[j]! += weight;
  }
  let scores = new Array<number>(n).fill(1);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const next = edges.map((incoming) => 1 - DAMPING + DAMPING * incoming.reduce((sum, { from, weight }) => sum + (weight / outSum[from]!) * scores[from]!, 0));
    const delta = next.reduce((d, v, i) => Math.max(d, Math.abs(v - scores[i]!)), 0);
    scores = next;
    if (delta < TOLERANCE) break;
  }
  return { sentences: sentences.map((s, index) => ({ index, text: s, score: Math.round(scores[index]! * 1e6) / 1e6 })), total: all.length };
}

/** The `count` best sentences (ties: the earlier), returned in text order. */
export function topSentences(ranked: RankedSentence[], count: number): RankedSentence[] {
  return [...ranked]
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, count)
    .sort((a, b) => a.index - b.index);
}
