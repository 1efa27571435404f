/**
 * YAKE (Campos et al., "YAKE! Keyword extraction from single documents using multiple local
 * features", Information Sciences 509, 2020), unsupervised and single-document: each word is scored
 * by its casing, position, frequency, relatedness to context and spread over sentences; a candidate
 * phrase (1 to 3 words within a chunk, not starting or ending with a stop word) combines the scores
 * of its words. Lower is more relevant. No library fits: the npm ports are unmaintained or untyped,
 * and the algorithm is a page of arithmetic.
 */
import { isStopWord } from '../stopwords.ts';
import { chunks, fold, isNoise, verbLike, type Token } from './tokens.ts';

export interface RankedKeyword {
  keyword: string;
  /** The engine's own score (YAKE: lower is better; RAKE: higher is better). */
  raw: number;
}

const MAX_WORDS = 3;

interface WordStats {
  tf: number;
  upper: number;
  acronym: number;
  sentences: number[];
  left: Map<string, number>;
  right: Map<string, number>;
}

export function yake(text: string, max: number): RankedKeyword[] {
  const { chunks: parts, sentences } = chunks(text);
  const stats = new Map<string, WordStats>();
  const stat = (key: string) => {
    let s = stats.get(key);
    if (!s) stats.set(key, (s = { tf: 0, upper: 0, acronym: 0, sentences: [], left: new Map(), right: new Map() }));
    return s;
  };
  for (const chunk of parts) {
    chunk.forEach((token, i) => {
      const s = stat(token.key);
      s.tf += 1;
      if (/^\p{Lu}[\p{Lu}\p{N}]+$/u.test(token.text)) s.acronym += 1;
      else if (/^\p{Lu}/u.test(token.text) && !(i === 0 && isSentenceStart(parts, chunk))) s.upper += 1;
      if (s.sentences.at(-1) !== token.sentence) s.sentences.push(token.sentence);
      // Co-occurrence within a window of one word each side, as the reference implementation.
      const left = chunk[i - 1];
      const right = chunk[i + 1];
      if (left) s.left.set(left.key, (s.left.get(left.key) ?? 0) + 1);
      if (right) s.right.set(right.key, (s.right.get(right.key) ?? 0) + 1);
    });
  }
  const content = [...stats.entries()].filter(([key]) => !isNoise(key, isStopWord)).map(([, s]) => s.tf);
  const meanTf = content.reduce((a, b) => a + b, 0) / Math.max(1, content.length);
  const sdTf = Math.sqrt(content.reduce((a, b) => a + (b - meanTf) ** 2, 0) / Math.max(1, content.length));
  const maxTf = Math.max(1, ...content);

  const wordScore = new Map<string, number>();
  for (const [key, s] of stats) {
    const casing = Math.max(s.upper, s.acronym) / (1 + Math.log(s.tf));
    const position = Math.log(Math.log(3 + median(s.sentences)));
    const frequency = s.tf / (meanTf + sdTf);
    const spread = (m: Map<string, number>) => (m.size === 0 ? 0 : m.size / [...m.values()].reduce((a, b) => a + b, 0));
    const relatedness = 1 + (spread(s.left) + spread(s.right)) * (s.tf / maxTf);
    const different = s.sentences.length / Math.max(1, sentences);
    wordScore.set(key, (relatedness * position) / (casing + frequency / relatedness + different / relatedness));
  }

  const verbs = verbLike(parts);
  const candidates = new Map<string, { words: string[]; tf: number }>();
  for (const chunk of parts) {
    for (let start = 0; start < chunk.length; start++) {
      for (let n = 1; n <= MAX_WORDS && start + n <= chunk.length; n++) {
        const phrase = chunk.slice(start, start + n);
        if (!isCandidate(phrase, verbs)) continue;
        const key = phrase.map((t) => t.key).join(' ');
        const entry = candidates.get(key) ?? { words: phrase.map((t) => t.key), tf: 0 };
        entry.tf += 1;
        candidates.set(key, entry);
      }
    }
  }
  const scored = [...candidates.entries()].map(([keyword, { words, tf }]) => {
    const inner = words.filter((w) => !isStopWord(w)).map((w) => wordScore.get(w)!);
    const product = inner.reduce((a, b) => a * b, 1);
    const sum = inner.reduce((a, b) => a + b, 0);
    return { keyword, raw: product / (tf * (1 + sum)) };
  });
  scored.sort((a, b) => a.raw - b.raw || a.keyword.localeCompare(b.keyword));
  return distinct(scored, max);
}

function isCandidate(phrase: Token[], verbs: Set<string>): boolean {
  const first = phrase[0]!.key;
  const last = phrase.at(-1)!.key;
  if (isNoise(first, isStopWord) || isNoise(last, isStopWord) || verbs.has(first) || verbs.has(last)) return false;
  return phrase.every((t) => !/^\d+([.,]\d+)*$/.test(t.key));
}

/** Whether a chunk opens its sentence (its first word's capital says nothing then). */
function isSentenceStart(parts: Token[][], chunk: Token[]): boolean {
  const index = parts.indexOf(chunk);
  return index === 0 || parts[index - 1]![0]!.sentence !== chunk[0]!.sentence;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The best `max` keywords, near-duplicates left out: a keyword whose folded form equals, or is
 * contained in, one already chosen (YAKE's own deduplication is by string similarity; this is its
 * word-level counterpart).
 */
export function distinct(ranked: RankedKeyword[], max: number): RankedKeyword[] {
  const chosen: RankedKeyword[] = [];
  const folded: string[] = [];
  for (const candidate of ranked) {
    if (chosen.length >= max) break;
    const f = fold(candidate.keyword);
    if (folded.some((g) => g === f || ` ${g} `.includes(` ${f} `) || ` ${f} `.includes(` ${g} `))) continue;
    chosen.push(candidate);
    folded.push(f);
  }
  return chosen;
}
