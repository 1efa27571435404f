/**
 * Risks read from the cited data by fixed, published rules, nothing else: a rule fires only on
 * figures or records in the report. What needs reading a filing's text (a going-concern doubt, a
 * material weakness, litigation) is not judged here.
 */
import type { EdgarFiling } from '../../../providers/filings/edgar.ts';
import type { LeiRecord } from '../../../providers/lei/gleif.ts';
import { changePercent, type Figure } from './financials.ts';

export const RISK_RULES = [
  { rule: 'net_loss', checks: 'Net income (loss) of the latest annual period is below zero (SEC EDGAR XBRL facts).' },
  { rule: 'revenue_decline', checks: 'Revenue of the latest annual period is below the year before, same concept (SEC EDGAR XBRL facts).' },
  { rule: 'stockholders_deficit', checks: "Stockholders' equity at the latest fiscal year end is below zero (SEC EDGAR XBRL facts)." },
  { rule: 'late_filing_notice', checks: 'A notice of late filing (form NT 10-K, NT 10-Q, NT 20-F, NT 11-K) was filed in the last 365 days (SEC EDGAR submissions).' },
  { rule: 'lei_not_current', checks: 'The GLEIF record is not ISSUED (e.g. LAPSED: not renewed) or the entity is not ACTIVE (GLEIF).' },
] as const;

export type RiskRule = (typeof RISK_RULES)[number]['rule'];

export interface Risk {
  rule: RiskRule;
  finding: string;
  /** Which evidence it rests on: `facts`, `submissions` or `gleif`. */
  evidence: 'facts' | 'submissions' | 'gleif';
}

const amount = (value: number, unit: string) => `${value.toLocaleString('en-US')} ${unit}`;
const LATE_NOTICE = /^NT (10-K|10-Q|20-F|11-K)/;

/** The rules that could be evaluated on what was found, and what they found. */
export function assessRisks(input: { figures: readonly Figure[] | null; filings: readonly EdgarFiling[] | null; lei: LeiRecord | null; now: Date }): { evaluated: RiskRule[]; risks: Risk[] } {
  const evaluated: RiskRule[] = [];
  const risks: Risk[] = [];
  const figure = (metric: Figure['metric']) => input.figures?.find((f) => f.metric === metric);
  if (input.figures) {
    const income = figure('net_income');
    if (income) {
      evaluated.push('net_loss');
      if (income.fact.value < 0) risks.push({ rule: 'net_loss', evidence: 'facts', finding: `Net loss of ${amount(-income.fact.value, income.unit)} for the fiscal year ended ${income.fact.end} (${income.fact.form} filed ${income.fact.filed}).` });
    }
    const revenue = figure('revenue');
    const change = revenue ? changePercent(revenue) : null;
    if (revenue?.prior && change !== null) {
      evaluated.push('revenue_decline');
      if (change < 0) risks.push({ rule: 'revenue_decline', evidence: 'facts', finding: `Revenue fell ${Math.abs(change)}% to ${amount(revenue.fact.value, revenue.unit)} in the fiscal year ended ${revenue.fact.end}, from ${amount(revenue.prior.value, revenue.unit)} the year before.` });
    }
    const equity = figure('stockholders_equity');
    if (equity) {
      evaluated.push('stockholders_deficit');
      if (equity.fact.value < 0) risks.push({ rule: 'stockholders_deficit', evidence: 'facts', finding: `Stockholders' deficit of ${amount(-equity.fact.value, equity.unit)} at ${equity.fact.end} (${equity.fact.form} filed ${equity.fact.filed}).` });
    }
  }
  if (input.filings) {
    evaluated.push('late_filing_notice');
    const since = new Date(input.now.getTime() - 365 * 86_400_000).toISOString().slice(0, 10);
    for (const filing of input.filings.filter((f) => LATE_NOTICE.test(f.form) && f.filing_date >= since)) {
      risks.push({ rule: 'late_filing_notice', evidence: 'submissions', finding: `Filed a notice of late filing (${filing.form}) on ${filing.filing_date}${filing.report_date ? ` for the period ended ${filing.report_date}` : ''}, accession ${filing.accession_number}.` });
    }
  }
  if (input.lei) {
    evaluated.push('lei_not_current');
    const { registration_status: registration, entity_status: entity } = input.lei;
    if ((registration && registration !== 'ISSUED') || (entity && entity !== 'ACTIVE')) {
      risks.push({ rule: 'lei_not_current', evidence: 'gleif', finding: `The LEI ${input.lei.lei} is ${registration ?? 'of unknown registration status'} and the entity ${entity ?? 'of unknown status'} in GLEIF's registry.` });
    }
  }
  return { evaluated, risks };
}
