/**
 * Email addresses. `normalized` is the address trimmed and lower-cased (RFC 5321 lets a local part
 * be case-sensitive, but no major mailbox provider treats it so). `canonical` is the mailbox the
 * address delivers to, where the provider documents how: Gmail ignores dots and a `+tag` in the
 * local part (googlemail.com is gmail.com); Outlook.com, iCloud, Fastmail and Proton deliver
 * `name+tag` to `name`. For any other domain dots and `+` may be significant: kept as they are.
 */
export interface EmailResult {
  input: string;
  normalized: string;
  canonical: string;
  rule: string;
}

interface ProviderRule {
  domains: string[];
  /** The domain canonical addresses use. */
  canonicalDomain?: string;
  dots: boolean;
  plus: boolean;
  name: string;
}

const RULES: ProviderRule[] = [
  { name: 'Gmail', domains: ['gmail.com', 'googlemail.com'], canonicalDomain: 'gmail.com', dots: true, plus: true },
  { name: 'Outlook.com', domains: ['outlook.com', 'hotmail.com', 'live.com', 'msn.com'], dots: false, plus: true },
  { name: 'iCloud', domains: ['icloud.com', 'me.com', 'mac.com'], dots: false, plus: true },
  { name: 'Fastmail', domains: ['fastmail.com', 'fastmail.fm'], dots: false, plus: true },
  { name: 'Proton', domains: ['proton.me', 'protonmail.com', 'pm.me'], dots: false, plus: true },
];

/** A practical address syntax: one @, a dot-atom local part, a domain of letters, digits and hyphens with a TLD. */
const SYNTAX = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export function parseEmail(raw: string): EmailResult | undefined {
  const normalized = raw.trim().replace(/^mailto:/i, '').replace(/^<(.*)>$/, '$1').toLowerCase();
  if (!SYNTAX.test(normalized) || normalized.length > 254) return undefined;
  const at = normalized.lastIndexOf('@');
  let local = normalized.slice(0, at);
  const domain = normalized.slice(at + 1);
  const rule = RULES.find((r) => r.domains.includes(domain));
  if (!rule) return { input: raw, normalized, canonical: normalized, rule: 'lower-cased; dots and +tags kept (the provider of this domain does not document ignoring them)' };
  const done: string[] = ['lower-cased'];
  if (rule.plus && local.includes('+')) {
    local = local.slice(0, local.indexOf('+'));
    done.push('+tag removed');
  }
  if (rule.dots && local.includes('.')) {
    local = local.replaceAll('.', '');
    done.push('dots removed');
  }
  const canonicalDomain = rule.canonicalDomain ?? domain;
  return {
    input: raw,
    normalized,
    canonical: `${local}@${canonicalDomain}`,
    rule: `${rule.name} (${rule.dots ? 'ignores dots and +tags' : 'delivers name+tag to name'}): ${done.join(', ')}`,
  };
}
