// Types of the vader-sentiment package (the VADER authors' JavaScript port), which ships none.
declare module 'vader-sentiment' {
  export const SentimentIntensityAnalyzer: {
    polarity_scores(text: string): { neg: number; neu: number; pos: number; compound: number };
  };
  const vader: { SentimentIntensityAnalyzer: typeof SentimentIntensityAnalyzer };
  export default vader;
}
