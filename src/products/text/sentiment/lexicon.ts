/**
 * Lexicon sentiment with VADER (Hutto & Gilbert, ICWSM 2014), through the `vader-sentiment` package
 * (the VADER authors' JavaScript port, Apache-2.0): a 7,500-entry valence lexicon with negation
 * (`not great`), intensifiers and dampeners (`very`, `slightly`), contrast (`but`), capitals and
 * exclamation marks. Each sentence is scored on its own, as VADER advises for longer texts; a
 * sentence's label follows VADER's thresholds (compound ≥ 0.05 positive, ≤ -0.05 negative).
 */
import vader from 'vader-sentiment';
import { splitSentences } from '../sentences.ts';

export type Label = 'positive' | 'neutral' | 'negative';
export const THRESHOLD = 0.05;
/** Sentences shown per signal: the strongest ones. */
const SHOWN = 5;

export const labelOf = (compound: number): Label => (compound >= THRESHOLD ? 'positive' : compound <= -THRESHOLD ? 'negative' : 'neutral');

const round = (x: number) => Math.round(x * 10_000) / 10_000;

export interface Signal {
  count: number;
  share: number;
  score: number;
  sentences: { text: string; score: number }[];
}

export function lexiconSentiment(text: string) {
  return lexiconOfScores(splitSentences(text).map((sentence) => ({ text: sentence, score: round(vader.SentimentIntensityAnalyzer.polarity_scores(sentence).compound) })));
}

/** The overall label and score and the three signals of sentences already scored. */
export function lexiconOfScores(scored: { text: string; score: number }[]) {
  const total = scored.length;
  const mean = total === 0 ? 0 : round(scored.reduce((sum, s) => sum + s.score, 0) / total);
  const signal = (label: Label): Signal => {
    const these = scored.filter((s) => labelOf(s.score) === label);
    return {
      count: these.length,
      share: total === 0 ? 0 : round(these.length / total),
      score: these.length === 0 ? 0 : round(these.reduce((sum, s) => sum + s.score, 0) / these.length),
      sentences: [...these].sort((a, b) => Math.abs(b.score) - Math.abs(a.score)).slice(0, SHOWN),
    };
  };
  return { label: labelOf(mean), score: mean, sentences: total, signals: { positive: signal('positive'), neutral: signal('neutral'), negative: signal('negative') } };
}
