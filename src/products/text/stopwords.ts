/**
 * The English stop-word list of the local engines: function words only (articles, pronouns,
 * auxiliary and modal verbs, prepositions, conjunctions, and the commonest adverbs, quantifiers and
 * discourse words), 227 of them. Content words never appear here, unlike the long "union" lists
 * (stopwords-iso's 1,298 English words drop `research`, `system`, `information`), which hurt keyword
 * extraction; it starts from the `stopword` package's English list (108 words) and adds the missing
 * function words (`will`, `not`, `its`, `may`, contractions...).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above across after again against all almost along already also although always am among an and another any anyone
anything are aren't around as at be because been before being below between both but by can can't cannot could couldn't
did didn't do does doesn't doing don't down during each either else enough etc even ever every everything few for from
further get gets getting got had hadn't has hasn't have haven't having he her here hers herself him himself his how however
i i'm i've if in into is isn't it it's its itself just least less let let's like made make makes many may me might mine
more most much must my myself near neither never no nor not now of off often on once one only onto or other others otherwise
our ours ourselves out over own per perhaps quite rather really said same say says shall she should shouldn't since so some
something still such than that that's the their theirs them themselves then there there's these they they're this those
though through thus to too toward towards under until up upon us very via was wasn't way we we're well were weren't what
what's when where whether which while who whom whose why will with within without won't would wouldn't yet you you're your
yours yourself yourselves also e.g i.e vs`
    .split(/\s+/)
    .filter(Boolean),
);

export const isStopWord = (word: string): boolean => STOP_WORDS.has(word.toLowerCase());
