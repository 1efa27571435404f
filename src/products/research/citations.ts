/**
 * The citation check of a model-written answer: every statement cites at least one of the numbered
 * passages it was given, every number is one of them, and any URL or `[n]` written into a statement
 * is one of the pages fetched and passages given. An answer that fails is never sold.
 */

export interface Statement {
  text: string;
  /** Numbers of the passages the statement rests on (as given to the model, from 1). */
  citations: number[];
}

const MAX_STATEMENT_CHARS = 600;
const URL_IN_TEXT = /https?:\/\/[^\s)\]>"']+/gi;
const MARKER = /\[(\d+)\]/g;

/**
 * The model's answer (parsed JSON) as statements, or what is wrong with it. `passages` is how many
 * numbered passages the model was given; `fetched` the URLs really fetched.
 */
export function checkAnswer(
  value: unknown,
  passages: number,
  maxStatements: number,
  fetched: ReadonlySet<string>,
): { ok: true; value: Statement[] } | { ok: false; problems: string[] } {
  const list = (value as { statements?: unknown } | null)?.statements;
  if (!Array.isArray(list)) return { ok: false, problems: ['expected {"statements": [{"text": string, "citations": [numbers]}]}'] };
  const problems: string[] = [];
  if (list.length > maxStatements) problems.push(`at most ${maxStatements} statements`);
  const inRange = (n: unknown) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= passages;
  const statements: Statement[] = [];
  list.forEach((item: unknown, i) => {
    const { text, citations } = (item ?? {}) as { text?: unknown; citations?: unknown };
    const where = `statement ${i + 1}`;
    if (typeof text !== 'string' || text.trim() === '') return void problems.push(`${where}: text must be a non-empty string`);
    if (text.length > MAX_STATEMENT_CHARS) problems.push(`${where}: longer than ${MAX_STATEMENT_CHARS} characters`);
    if (!Array.isArray(citations) || citations.length === 0) return void problems.push(`${where}: cites no passage (every statement must cite at least one)`);
    const wrong = citations.filter((n) => !inRange(n));
    if (wrong.length > 0) problems.push(`${where}: cites ${wrong.map(String).join(', ')}, not a passage number (1 to ${passages})`);
    const markers = [...text.matchAll(MARKER)].map((m) => Number(m[1])).filter((n) => !inRange(n));
    if (markers.length > 0) problems.push(`${where}: its text cites [${markers.join('], [')}], not a passage number`);
    const urls = (text.match(URL_IN_TEXT) ?? []).map((url) => url.replace(/[.,;:!?]+$/, '')).filter((url) => !fetched.has(url));
    if (urls.length > 0) problems.push(`${where}: names a URL that is not one of the passages' pages`);
    statements.push({ text: text.replace(/\s*\[\d+\]/g, '').trim(), citations: [...new Set(citations as number[])] });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: statements };
}

/**
 * Statements renumbered by first use: `order` lists the cited passage numbers (as given) in the
 * order they are first cited, each statement's citations become positions in it (from 1).
 */
export function renumber(statements: readonly Statement[]): { statements: Statement[]; order: number[] } {
  const order: number[] = [];
  const out = statements.map((s) => ({
    text: s.text,
    citations: s.citations.map((n) => {
      if (!order.includes(n)) order.push(n);
      return order.indexOf(n) + 1;
    }),
  }));
  return { statements: out, order };
}

/** The answer text: each statement followed by its citation markers. */
export function answerText(statements: readonly Statement[]): string {
  return statements.map((s) => `${s.text} ${s.citations.map((n) => `[${n}]`).join('')}`).join(' ');
}
