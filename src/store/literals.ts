/**
 * Client-side parameter binding for PostgreSQL: replaces `$1…$n` with SQL literals.
 * Strings are single-quoted with quotes doubled, which is exact under `standard_conforming_strings`
 * (on by default since PostgreSQL 9.1): backslashes carry no meaning inside '…'.
 * Only for SQL text written in this project; it does not look for `$n` inside literals or comments.
 */
export function bindLiterals(sql: string, params: readonly unknown[] = []): string {
  return sql.replace(/\$(\d+)/g, (_match, index: string) => {
    const i = Number(index) - 1;
    if (i < 0 || i >= params.length) throw new Error(`SQL parameter $${index} has no value`);
    return literal(params[i]);
  });
}

export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('SQL parameter is not a finite number');
    return String(value);
  }
  if (value instanceof Date) return quote(value.toISOString());
  if (typeof value === 'string') return quote(value);
  return quote(JSON.stringify(value));
}

function quote(text: string): string {
  // PostgreSQL text cannot hold NUL; refuse rather than truncate.
  if (text.includes('\0')) throw new Error('SQL parameter contains a NUL character');
  return `'${text.replaceAll("'", "''")}'`;
}
