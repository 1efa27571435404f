import { splitSentences } from '../sentences.ts';

/** A word as written (for case features) and its key (lowercased), with where it stands. */
export interface Token {
  text: string;
  key: string;
  sentence: number;
}

const WORD = /[\p{L}\p{N}]+(?:['’.\-][\p{L}\p{N}]+)*/gu;
/** Punctuation inside a sentence that ends a candidate phrase (a phrase never spans it). */
const BREAK = /[,;:()[\]{}"“”‘’!?|/]|\s[-–—]\s|\.\s/;

/**
 * The text as chunks: runs of words between punctuation, each a list of tokens, in sentence order.
 * Keyword candidates are contiguous words within one chunk.
 */
export function chunks(text: string): { chunks: Token[][]; sentences: number } {
  const out: Token[][] = [];
  const sentences = splitSentences(text);
  sentences.forEach((sentence, index) => {
    for (const part of sentence.split(BREAK)) {
      const tokens = (part.match(WORD) ?? []).map((word) => ({ text: word, key: word.toLowerCase().replace(/’/g, "'"), sentence: index }));
      if (tokens.length > 0) out.push(tokens);
    }
  });
  return { chunks: out, sentences: sentences.length };
}

/** Words that cannot be keywords on their own: stop words, numbers, single characters. */
export const isNoise = (key: string, stop: (w: string) => boolean): boolean => stop(key) || /^\d+([.,]\d+)*$/.test(key) || key.length < 2;

/**
 * Words the text uses as verbs, told from their neighbours without a tagger: a word right before an
 * article or possessive (`revives the`, `communicate the`) or right after a subject pronoun, modal,
 * relative or `to` (`that wants`, `can keep`, `to restore`). A keyword never ends in one, and
 * starts with one only as an adjective would (never here): cheap, and it removes most verb phrases.
 */
const BEFORE_OBJECT = new Set(['the', 'a', 'an', 'its', 'their', 'his', 'her', 'our', 'your', 'my', 'this', 'these', 'those', 'each', 'every', 'them', 'it']);
const BEFORE_VERB = new Set(['i', 'we', 'you', 'they', 'he', 'she', 'it', 'that', 'which', 'who', 'can', 'could', 'will', 'would', 'may', 'might', 'must', 'should', 'shall', 'not', 'also', 'often', 'never', 'now', 'then', 'later', 'first']);
export function verbLike(parts: Token[][]): Set<string> {
  const verbs = new Set<string>();
  for (const chunk of parts) {
    chunk.forEach((token, i) => {
      const next = chunk[i + 1]?.key;
      const previous = chunk[i - 1]?.key;
      if ((next && BEFORE_OBJECT.has(next)) || (previous && BEFORE_VERB.has(previous))) verbs.add(token.key);
    });
  }
  for (const stop of BEFORE_OBJECT) verbs.delete(stop);
  return verbs;
}

/** A light plural fold (`payments` ~ `payment`), for telling near-duplicate keywords apart. */
export const fold = (phrase: string): string =>
  phrase
    .split(' ')
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w))
    .join(' ');
