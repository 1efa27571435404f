/**
 * Bounds on the caller's JSON Schema, checked with the input (400 naming `schema`, before payment):
 * its size and depth, and its regular expressions. A schema is code the service runs: `pattern` and
 * `patternProperties` compile to JavaScript regular expressions, and one with a quantified group that
 * itself repeats or alternates (`(a+)+`, `(a|aa)*`) can backtrack for minutes on a short string, so
 * such patterns are refused (the classic star-height test), as are very long ones.
 */
export const MAX_SCHEMA_CHARS = 20_000;
export const MAX_SCHEMA_DEPTH = 12;
export const MAX_PATTERN_CHARS = 200;

/** What is wrong with the schema's size, depth or patterns; undefined when nothing is. */
export function schemaBoundsProblem(schema: unknown): string | undefined {
  const size = JSON.stringify(schema)?.length ?? 0;
  if (size > MAX_SCHEMA_CHARS) return `larger than ${MAX_SCHEMA_CHARS} characters of JSON (${size})`;
  const depth = depthOf(schema);
  if (depth > MAX_SCHEMA_DEPTH) return `nested deeper than ${MAX_SCHEMA_DEPTH} levels (${depth})`;
  for (const pattern of patternsOf(schema)) {
    if (pattern.length > MAX_PATTERN_CHARS) return `a pattern is longer than ${MAX_PATTERN_CHARS} characters`;
    if (backtracks(pattern)) return `the pattern ${JSON.stringify(pattern.slice(0, 60))} repeats a group that itself repeats or alternates (catastrophic backtracking); rewrite it without nested quantifiers`;
  }
  return undefined;
}

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((max, child) => Math.max(max, depthOf(child)), 0);
}

function patternsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value !== 'object' || value === null) return out;
  if (Array.isArray(value)) {
    for (const item of value) patternsOf(item, out);
    return out;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key === 'pattern' && typeof child === 'string') out.push(child);
    if (key === 'patternProperties' && typeof child === 'object' && child !== null) out.push(...Object.keys(child));
    patternsOf(child, out);
  }
  return out;
}

/** Whether a group containing a quantifier or an alternation is itself quantified. */
export function backtracks(pattern: string): boolean {
  // Each open group: whether it holds a quantifier or `|` so far.
  const stack: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') stack.push(false);
    else if (c === ')') {
      const risky = stack.pop() ?? false;
      const next = pattern[i + 1];
      const quantified = next === '*' || next === '+' || next === '{';
      if (risky && quantified) return true;
      // A group's risk belongs to its enclosing group too.
      if ((risky || quantified) && stack.length > 0) stack[stack.length - 1] = true;
    } else if (c === '*' || c === '+' || c === '{' || c === '|') {
      if (stack.length > 0) stack[stack.length - 1] = true;
    }
  }
  return false;
}
