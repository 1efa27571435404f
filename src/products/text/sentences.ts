/**
 * Sentences and words of a text, shared by the local engines. Sentences come from the ICU sentence
 * segmenter built into Node (Intl.Segmenter); words are runs of letters and digits (with inner
 * apostrophes, hyphens and dots, so `x402`, `don't`, `e-mail` and `v2.1` stay whole), lowercased.
 */
const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** The text's sentences, trimmed, in order; line breaks between paragraphs also end a sentence. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\n\s*\n|\r?\n(?=\s*[-*•]\s)/)) {
    for (const { segment } of segmenter.segment(block)) {
      const sentence = segment.replace(/\s+/g, ' ').trim();
      if (/[\p{L}\p{N}]/u.test(sentence)) out.push(sentence);
    }
  }
  return out;
}

const WORD = /[\p{L}\p{N}]+(?:['’.\-][\p{L}\p{N}]+)*/gu;

/** The words of a text, lowercased, in order. */
export function words(text: string): string[] {
  return (text.match(WORD) ?? []).map((w) => w.toLowerCase().replace(/’/g, "'"));
}
