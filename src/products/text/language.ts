/**
 * Language detection for the text products (franc-min: trigram profiles of the 82 most spoken
 * languages). The local engines (stop-word list, sentiment lexicon) are English only: they detect the
 * language first and refuse another one honestly, before payment (422 `unsupported_language`, naming
 * it), instead of answering nonsense. Short texts cannot be told apart reliably, so a text is refused
 * only when it is long enough and English is clearly not among the likely languages.
 */
import { francAll } from 'franc-min';
import { ProductInputError } from '../kit/index.ts';

export const UNSUPPORTED_LANGUAGE = 'unsupported_language';

/** Below this many letters a guess is noise: the text is taken as English (language `und`). */
const MIN_LETTERS = 24;
/** English stays accepted while its trigram score is at least this share of the best language's. */
const ENGLISH_MARGIN = 0.85;

/** ISO 639-3 codes franc-min may answer with, named for messages (the others are shown by code). */
const NAMES: Record<string, string> = {
  eng: 'English', deu: 'German', fra: 'French', spa: 'Spanish', por: 'Portuguese', ita: 'Italian', nld: 'Dutch',
  swe: 'Swedish', dan: 'Danish', nob: 'Norwegian', pol: 'Polish', ces: 'Czech', slk: 'Slovak', ron: 'Romanian',
  hun: 'Hungarian', fin: 'Finnish', tur: 'Turkish', rus: 'Russian', ukr: 'Ukrainian', bul: 'Bulgarian',
  srp: 'Serbian', hrv: 'Croatian', ell: 'Greek', arb: 'Arabic', pes: 'Persian', heb: 'Hebrew', hin: 'Hindi',
  ben: 'Bengali', urd: 'Urdu', cmn: 'Chinese', jpn: 'Japanese', kor: 'Korean', vie: 'Vietnamese', tha: 'Thai',
  ind: 'Indonesian', zlm: 'Malay', tgl: 'Tagalog', swh: 'Swahili', tam: 'Tamil', tel: 'Telugu', mar: 'Marathi',
};

export interface DetectedLanguage {
  /** ISO 639-3 code (`eng`), or `und` when the text is too short to tell. */
  code: string;
  name: string;
}

export function detectLanguage(text: string): DetectedLanguage {
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  if (letters < MIN_LETTERS) return { code: 'und', name: 'undetermined (too short to tell)' };
  const ranked = francAll(text.slice(0, 4_000));
  const [best] = ranked;
  if (!best || best[0] === 'und') return { code: 'und', name: 'undetermined' };
  const english = ranked.find(([code]) => code === 'eng');
  if (best[0] === 'eng' || (english && english[1] >= ENGLISH_MARGIN * best[1])) return { code: 'eng', name: 'English' };
  return { code: best[0], name: NAMES[best[0]] ?? best[0] };
}

/**
 * The language of a text a local (English-only) engine is asked to read: English or undetermined,
 * else a 422 naming the language found, and what to use instead when there is such a thing.
 */
export function requireEnglish(text: string, field: string, instead?: string): DetectedLanguage {
  const language = detectLanguage(text);
  if (language.code === 'eng' || language.code === 'und') return language;
  const hint = instead ? `; ${instead}` : '';
  throw new ProductInputError(`the text looks like ${language.name} (${language.code}), and this engine reads English only${hint}`, 422, field, UNSUPPORTED_LANGUAGE);
}
