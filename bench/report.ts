/**
 * Text tables of `npm run bench`. A figure measured in several runs is shown as min / median / max;
 * a ratio of two servers is taken run by run (the two measured in the same run), then summarised.
 */

export interface Column<T> {
  header: string;
  digits: number;
  value(figures: T): number;
}

const LABEL_WIDTH = 34;
const CELL_WIDTH = 24;

function median(sorted: number[]): number {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** `value` alone, or `min / median / max` of several. */
function cell(values: number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const shown = sorted.length > 1 ? [sorted[0]!, median(sorted), sorted.at(-1)!] : sorted;
  return shown.map((v) => v.toFixed(digits)).join(' / ');
}

export function header<T>(columns: Column<T>[]): string {
  return ''.padEnd(LABEL_WIDTH) + columns.map((c) => c.header.padStart(CELL_WIDTH)).join('');
}

/** One row: each column over the runs. */
export function row<T>(label: string, runs: T[], columns: Column<T>[]): string {
  return label.padEnd(LABEL_WIDTH) + columns.map((c) => cell(runs.map(c.value), c.digits).padStart(CELL_WIDTH)).join('');
}

/** Each column of `runs` divided by the same column of `baseline`, run by run. */
export function ratioRow<T>(label: string, runs: T[], baseline: T[], columns: Column<T>[]): string {
  return label.padEnd(LABEL_WIDTH) + columns.map((c) => cell(runs.map((r, i) => c.value(r) / c.value(baseline[i]!)), 2).padStart(CELL_WIDTH)).join('');
}

/** A row of figures, or with a baseline a row of ratios to it. */
export type Row<T> = [label: string, runs: T[], baseline?: T[]];

export function printTable<T>(title: string, columns: Column<T>[], rows: Row<T>[]): void {
  console.log('');
  console.log(title);
  console.log(header(columns));
  for (const [label, runs, baseline] of rows) console.log(baseline ? ratioRow(label, runs, baseline, columns) : row(label, runs, columns));
}

/** The median of each figure: one run standing for several. */
export function medians<T extends { [K in keyof T]: number }>(runs: T[]): T {
  const keys = Object.keys(runs[0]!) as (keyof T)[];
  return Object.fromEntries(keys.map((k) => [k, median(runs.map((r) => r[k]).sort((a, b) => a - b))])) as T;
}
