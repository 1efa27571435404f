/**
 * Person names: honorifics and suffixes split off, "Last, First" reordered, given / middle / family
 * split, and case repaired only where the input had none (all upper or all lower): a name written
 * "McDonald" or "van der Berg" is kept as written.
 */
export interface ParsedName {
  full: string;
  prefix: string | null;
  given: string | null;
  middle: string | null;
  family: string | null;
  suffix: string | null;
}

const PREFIXES = new Map(
  ['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'sir', 'dame', 'rev', 'fr', 'lord', 'lady', 'hon'].map((p) => [p, p === 'prof' ? 'Prof.' : p === 'miss' || p === 'sir' || p === 'dame' || p === 'lord' || p === 'lady' ? cap(p) : `${cap(p)}.`]),
);
const SUFFIXES = new Map<string, string>(
  [
    ['jr', 'Jr.'],
    ['sr', 'Sr.'],
    ['ii', 'II'],
    ['iii', 'III'],
    ['iv', 'IV'],
    ['phd', 'PhD'],
    ['md', 'MD'],
    ['esq', 'Esq.'],
    ['cpa', 'CPA'],
    ['mba', 'MBA'],
  ],
);
/** Family-name particles, lower case inside a name ("Ludwig van Beethoven"). */
const PARTICLES = new Set(['van', 'von', 'de', 'der', 'den', 'da', 'di', 'du', 'del', 'della', 'la', 'le', 'bin', 'binti', 'al', 'ten', 'ter', 'dos', 'das']);

function cap(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

const key = (token: string) => token.toLowerCase().replace(/\./g, '');

/** One word in name case: hyphens and apostrophes start a new capital, "mc" takes one after it. */
function nameCase(word: string, inside: boolean): string {
  if (inside && PARTICLES.has(word.toLowerCase())) return word.toLowerCase();
  return word
    .toLowerCase()
    .replace(/(^|[-'’])(\p{L})/gu, (_, sep: string, letter: string) => sep + letter.toUpperCase())
    .replace(/^Mc(\p{L})/u, (_, letter: string) => `Mc${letter.toUpperCase()}`);
}

/** Whether the text carries no case information (all one case), so it may be re-cased. */
function caseless(text: string): boolean {
  return text === text.toUpperCase() || text === text.toLowerCase();
}

export interface NameResult {
  name: ParsedName;
  confidence: number;
  notes: string[];
}

/** Parses a full name; `parts` are separately given fields (they win over guessing from order). */
export function parseName(full: string | undefined, parts: { given?: string; middle?: string; family?: string } = {}): NameResult | undefined {
  const notes: string[] = [];
  const recase = (text: string, inside: boolean) => (caseless(text) ? text.split(/\s+/).map((w, i) => nameCase(w, inside || i > 0)).join(' ') : text);
  if (!full?.trim() && (parts.given?.trim() || parts.family?.trim())) {
    const given = parts.given?.trim() ? recase(parts.given.trim().replace(/\s+/g, ' '), false) : null;
    const middle = parts.middle?.trim() ? recase(parts.middle.trim().replace(/\s+/g, ' '), true) : null;
    const family = parts.family?.trim() ? recase(parts.family.trim().replace(/\s+/g, ' '), false) : null;
    return { name: { full: [given, middle, family].filter(Boolean).join(' '), prefix: null, given, middle, family, suffix: null }, confidence: 0.95, notes: ['given and family names were separate fields'] };
  }
  const text = full?.trim().replace(/\s+/g, ' ');
  if (!text || !/\p{L}/u.test(text)) return undefined;
  let confidence = 0.8;
  let tokens: string[];
  let reordered = false;
  const comma = text.split(',').map((s) => s.trim()).filter(Boolean);
  // "DOE, Jane" is "Last, First"; "Jane Doe, Jr." is a suffix after a comma.
  if (comma.length >= 2 && !SUFFIXES.has(key(comma[1]!))) {
    tokens = [...comma.slice(1).join(' ').split(' '), ...comma[0]!.split(' ')];
    reordered = true;
    confidence = 0.95;
    notes.push('"Last, First" order read from the comma');
  } else tokens = comma.join(' ').split(' ');
  const prefixes: string[] = [];
  const suffixes: string[] = [];
  while (tokens.length > 1 && PREFIXES.has(key(tokens[0]!))) prefixes.push(PREFIXES.get(key(tokens.shift()!))!);
  // Suffixes trail the name; after "Last, First" reordering one may sit before the family name.
  for (let i = tokens.length - 1; i >= 1; i--) {
    const suffix = SUFFIXES.get(key(tokens[i]!));
    if (suffix && (reordered || i === tokens.length - 1)) {
      suffixes.unshift(suffix);
      tokens.splice(i, 1);
    } else if (!reordered) break;
  }
  if (prefixes.length) notes.push(`honorific ${prefixes.join(' ')} split off`);
  if (suffixes.length) notes.push(`suffix ${suffixes.join(' ')} split off`);
  // Case is repaired word by word: a word in one case only carries none ("DOE", "jane"); "McDonald" keeps its own.
  const words = tokens.map((word, i) => (caseless(word) ? nameCase(word, i > 0) : word));
  if (words.some((word, i) => word !== tokens[i])) notes.push('case repaired (words written all in one case)');
  let given: string | null = null;
  let middle: string | null = null;
  let family: string | null = null;
  if (words.length === 1) {
    given = words[0]!;
    confidence = 0.4;
    notes.push('one word only: taken as the given name');
  } else {
    // Particles belong to the family name: "Ludwig van Beethoven".
    let split = words.length - 1;
    while (split > 1 && PARTICLES.has(words[split - 1]!.toLowerCase())) split--;
    given = words[0]!;
    family = words.slice(split).join(' ');
    middle = split > 1 ? words.slice(1, split).join(' ') : null;
    if (middle && !reordered) {
      confidence = Math.min(confidence, 0.7);
      notes.push('three or more words: the middle ones are taken as middle names');
    }
  }
  const prefix = prefixes.join(' ') || null;
  const suffix = suffixes.join(' ') || null;
  const name: ParsedName = { full: [prefix, given, middle, family, suffix].filter(Boolean).join(' '), prefix, given, middle, family, suffix };
  return { name, confidence, notes };
}
