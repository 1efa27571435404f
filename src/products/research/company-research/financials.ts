/**
 * The latest annual figures in a filer's XBRL facts. A figure is annual when it was reported in an
 * annual report (10-K, 20-F, 40-F and their amendments) for the fiscal period `FY`; a flow (revenue,
 * net income) must also span a year (350 to 380 days), so the fourth quarter a 10-K may tag is not
 * read as the year. The latest period wins, then the concept listed first, then the latest filing (a
 * restated figure). The year before is the same concept's annual figure ending 345 to 385 days
 * earlier. Shares outstanding is the cover-page figure of the latest filing of any form.
 */
import type { EdgarConcept, EdgarFact } from '../../../providers/filings/edgar.ts';

export type Metric = 'revenue' | 'net_income' | 'total_assets' | 'stockholders_equity' | 'shares_outstanding';

interface MetricSpec {
  metric: Metric;
  /** In order of preference for the same period. */
  concepts: string[];
  kind: 'flow' | 'stock' | 'cover';
}

export const METRICS: readonly MetricSpec[] = [
  {
    metric: 'revenue',
    concepts: ['us-gaap:Revenues', 'us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax', 'us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax', 'us-gaap:SalesRevenueNet', 'ifrs-full:Revenue'],
    kind: 'flow',
  },
  { metric: 'net_income', concepts: ['us-gaap:NetIncomeLoss', 'us-gaap:ProfitLoss', 'ifrs-full:ProfitLossAttributableToOwnersOfParent', 'ifrs-full:ProfitLoss'], kind: 'flow' },
  { metric: 'total_assets', concepts: ['us-gaap:Assets', 'ifrs-full:Assets'], kind: 'stock' },
  { metric: 'stockholders_equity', concepts: ['us-gaap:StockholdersEquity', 'us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest', 'ifrs-full:EquityAttributableToOwnersOfParent', 'ifrs-full:Equity'], kind: 'stock' },
  { metric: 'shares_outstanding', concepts: ['dei:EntityCommonStockSharesOutstanding'], kind: 'cover' },
];

export const ALL_CONCEPTS = METRICS.flatMap((m) => m.concepts);

const ANNUAL_FORMS = new Set(['10-K', '10-K/A', '10-KT', '10-KT/A', '20-F', '20-F/A', '40-F', '40-F/A']);
const DAY = 86_400_000;
const days = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / DAY;

export interface Figure {
  metric: Metric;
  concept: string;
  label: string | null;
  unit: string;
  fact: EdgarFact;
  prior: EdgarFact | null;
}

function annual(fact: EdgarFact, kind: MetricSpec['kind']): boolean {
  if (kind === 'cover') return true;
  if (!ANNUAL_FORMS.has(fact.form) || fact.fiscal_period !== 'FY') return false;
  if (kind === 'stock') return fact.start === null;
  return fact.start !== null && days(fact.start, fact.end) >= 350 && days(fact.start, fact.end) <= 380;
}

/** USD when reported, else the concept's only unit (a foreign filer's currency); shares for the cover figure. */
function unitOf(concept: EdgarConcept, kind: MetricSpec['kind']): string | undefined {
  const units = Object.keys(concept.units);
  if (kind === 'cover') return units.includes('shares') ? 'shares' : undefined;
  return units.includes('USD') ? 'USD' : units.length === 1 ? units[0] : undefined;
}

const newer = (a: EdgarFact, b: EdgarFact) => (a.end !== b.end ? a.end > b.end : a.filed > b.filed);

export function latestFigures(concepts: readonly EdgarConcept[]): Figure[] {
  const figures: Figure[] = [];
  for (const spec of METRICS) {
    let best: Figure | undefined;
    for (const name of spec.concepts) {
      const concept = concepts.find((c) => c.concept === name);
      const unit = concept && unitOf(concept, spec.kind);
      if (!concept || !unit) continue;
      const facts = concept.units[unit]!.filter((f) => annual(f, spec.kind));
      const latest = facts.reduce<EdgarFact | undefined>((top, f) => (!top || newer(f, top) ? f : top), undefined);
      // A later concept wins only with a later period: the one listed first is preferred for the same one.
      if (latest && (!best || latest.end > best.fact.end)) best = { metric: spec.metric, concept: name, label: concept.label, unit, fact: latest, prior: spec.kind === 'cover' ? null : yearBefore(facts, latest) };
    }
    if (best) figures.push(best);
  }
  return figures;
}

function yearBefore(facts: readonly EdgarFact[], latest: EdgarFact): EdgarFact | null {
  const earlier = facts.filter((f) => days(f.end, latest.end) >= 345 && days(f.end, latest.end) <= 385);
  return earlier.reduce<EdgarFact | null>((top, f) => (!top || newer(f, top) ? f : top), null);
}

/** Change from the year before in percent, one decimal; null without a year before or from zero. */
export function changePercent(figure: Figure): number | null {
  if (!figure.prior || figure.prior.value === 0) return null;
  return Math.round(((figure.fact.value - figure.prior.value) / Math.abs(figure.prior.value)) * 1000) / 10;
}
