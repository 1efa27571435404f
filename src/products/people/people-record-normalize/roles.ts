/** Job titles and company names: abbreviations written out, legal suffixes in their usual form. */

const TITLE_WORDS: Record<string, string> = {
  vp: 'VP', svp: 'SVP', evp: 'EVP', avp: 'AVP', ceo: 'CEO', cto: 'CTO', cfo: 'CFO', coo: 'COO', cio: 'CIO', ciso: 'CISO', cmo: 'CMO', cpo: 'CPO', cro: 'CRO',
  hr: 'HR', it: 'IT', qa: 'QA', ux: 'UX', ui: 'UI', ai: 'AI', ml: 'ML', gm: 'GM', r: 'R', d: 'D',
  sr: 'Senior', snr: 'Senior', jr: 'Junior', mgr: 'Manager', mngr: 'Manager', dir: 'Director', ops: 'Operations', mktg: 'Marketing',
  acct: 'Account', exec: 'Executive', asst: 'Assistant', assoc: 'Associate', admin: 'Administrator', dev: 'Developer', swe: 'Software Engineer',
  of: 'of', and: 'and', the: 'the', for: 'for',
};
/** "eng" after a leadership word is the department (VP Engineering), else the role (Software Engineer). */
const LEADS = new Set(['vp', 'svp', 'evp', 'avp', 'dir', 'director', 'head', 'of', 'cto']);

export interface TextParse {
  value: string;
  confidence: number;
  note: string;
}

export function normalizeTitle(raw: string): TextParse | undefined {
  const text = raw.trim().replace(/\s+/g, ' ');
  if (!/\p{L}/u.test(text)) return undefined;
  const caseless = text === text.toLowerCase() || text === text.toUpperCase();
  let expanded = false;
  const words = text.split(' ').map((word, i, all) => {
    const bare = word.toLowerCase().replace(/\.$/, '');
    if (bare === 'eng' || bare === 'engr') {
      expanded = true;
      return i > 0 && LEADS.has(all[i - 1]!.toLowerCase().replace(/\.$/, '')) ? 'Engineering' : 'Engineer';
    }
    const known = TITLE_WORDS[bare];
    if (known) {
      if (known.toLowerCase() !== bare) expanded = true;
      return i === 0 ? known.charAt(0).toUpperCase() + known.slice(1) : known;
    }
    return caseless ? word.charAt(0).toUpperCase() + word.slice(1).toLowerCase() : word;
  });
  const value = words.join(' ');
  return { value, confidence: expanded ? 0.75 : 0.9, note: expanded ? 'abbreviations written out' : caseless ? 'case repaired' : 'whitespace tidied' };
}

const COMPANY_SUFFIXES: Record<string, string> = {
  inc: 'Inc.', incorporated: 'Inc.', corp: 'Corp.', corporation: 'Corporation', co: 'Co.', llc: 'LLC', llp: 'LLP', lp: 'LP', ltd: 'Ltd', limited: 'Limited', plc: 'PLC',
  gmbh: 'GmbH', ag: 'AG', sa: 'SA', sas: 'SAS', sarl: 'SARL', bv: 'BV', nv: 'NV', oy: 'Oy', ab: 'AB', as: 'AS', kk: 'KK', pty: 'Pty', srl: 'SRL', spa: 'SpA',
};

export function normalizeCompany(raw: string): TextParse | undefined {
  const text = raw.trim().replace(/\s+/g, ' ').replace(/\s+,/g, ',');
  if (!/[\p{L}\d]/u.test(text)) return undefined;
  const lower = text === text.toLowerCase();
  const upper = text === text.toUpperCase();
  const words = text.split(' ').map((word, i) => {
    const bare = word.toLowerCase().replace(/[.,]/g, '');
    const suffix = i > 0 ? COMPANY_SUFFIXES[bare] : undefined;
    if (suffix) return (word.startsWith(',') ? ',' : '') + suffix;
    // All upper case: short words may be acronyms (IBM, AWS) and are kept.
    if (lower || (upper && bare.length > 3)) return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
    return word;
  });
  const value = words.join(' ').replace(/,(\S)/g, ', $1');
  return { value, confidence: 0.8, note: lower || upper ? 'case repaired, legal suffix in its usual form' : 'legal suffix in its usual form' };
}
