/**
 * `percall queries …`: the operator's saved analytics queries, callable by number through
 * analytics-query (`{"query": "3"}`) and listed in llms-full.txt. They live in the service's store;
 * the commands go through the running service's operator API (ADMIN_TOKEN; PERCALL_URL, default
 * http://127.0.0.1:4021), which checks a query before saving it.
 */
const USAGE = `usage:
  percall queries add --name NAME --sql SQL [--description TEXT] [--chain base]
  percall queries list
  percall queries remove NUMBER

add and remove need ADMIN_TOKEN (the service's operator secret); PERCALL_URL defaults to http://127.0.0.1:4021.`;

function flags(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}\n\n${USAGE}`);
    const value = args[i + 1];
    if (value === undefined) throw new Error(`${arg} needs a value\n\n${USAGE}`);
    out[arg.slice(2)] = value;
    i++;
  }
  return out;
}

export async function runQueriesCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const [action, ...rest] = argv;
  const base = (process.env.PERCALL_URL ?? 'http://127.0.0.1:4021').replace(/\/$/, '');
  if (action === 'list') {
    const response = await fetch(`${base}/api/v1/analytics-query/queries`);
    const body = (await response.json()) as { queries?: { id: number; name: string; description: string; sql: string }[] };
    if (!response.ok || !body.queries) {
      out(JSON.stringify(body, null, 2));
      return 1;
    }
    if (body.queries.length === 0) out('no saved queries');
    for (const q of body.queries) out(`${q.id}. ${q.name}${q.description ? ` — ${q.description}` : ''}\n   ${q.sql.replace(/\s+/g, ' ')}`);
    return 0;
  }
  if (action !== 'add' && action !== 'remove') {
    out(USAGE);
    return action === undefined || action === 'help' ? 0 : 2;
  }
  const token = process.env.ADMIN_TOKEN;
  if (!token) throw new Error(`ADMIN_TOKEN is not set\n\n${USAGE}`);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  if (action === 'add') {
    const f = flags(rest);
    if (!f.name || !f.sql) throw new Error(`add needs --name and --sql\n\n${USAGE}`);
    const response = await fetch(`${base}/admin/analytics/queries`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: f.name, sql: f.sql, description: f.description ?? '', ...(f.chain ? { chain: f.chain } : {}) }),
    });
    const body = (await response.json()) as { id?: number; detail?: string };
    if (!response.ok) {
      out(`not saved: ${body.detail ?? `HTTP ${response.status}`}`);
      return 1;
    }
    out(`saved as query ${body.id}: run it with {"query": "${body.id}"}`);
    return 0;
  }
  const [id] = rest;
  if (!id || !/^\d+$/.test(id)) throw new Error(`remove needs a query number\n\n${USAGE}`);
  const response = await fetch(`${base}/admin/analytics/queries/${id}`, { method: 'DELETE', headers });
  if (response.status === 204) {
    out(`query ${id} removed`);
    return 0;
  }
  out(`not removed: HTTP ${response.status}`);
  return 1;
}
