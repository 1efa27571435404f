/**
 * `percall research …`: the operator's research-log commands. They call the running service's
 * operator API (so they work with the embedded store and with PostgreSQL alike), authenticated with
 * ADMIN_TOKEN; PERCALL_URL says where the service is (default http://127.0.0.1:4021).
 */
const USAGE = `usage:
  percall research register --hypothesis TEXT --public-claim TEXT --observation TEXT --target TEXT
                            --horizon-days N --lens TEXT [--opportunity TEXT]
  percall research evaluate ID --verdict TEXT [--measured-value TEXT]
  percall research abandon ID [--verdict TEXT]
  percall research list

Needs ADMIN_TOKEN (the service's operator secret); PERCALL_URL defaults to http://127.0.0.1:4021.`;

function flags(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) continue;
    const value = args[i + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${arg} needs a value\n\n${USAGE}`);
    out[arg.slice(2)] = value;
    i++;
  }
  return out;
}

export async function runResearchCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const [action, ...rest] = argv;
  const base = (process.env.PERCALL_URL ?? 'http://127.0.0.1:4021').replace(/\/$/, '');
  if (action === 'list') {
    out(JSON.stringify(await (await fetch(`${base}/research/hypotheses.json`)).json(), null, 2));
    return 0;
  }
  const token = process.env.ADMIN_TOKEN;
  if (!token) throw new Error(`ADMIN_TOKEN is not set\n\n${USAGE}`);
  let path: string;
  let body: Record<string, unknown>;
  if (action === 'register') {
    const f = flags(rest);
    path = '/admin/research/hypotheses';
    body = {
      hypothesis: f.hypothesis,
      public_claim: f['public-claim'],
      observation: f.observation,
      opportunity: f.opportunity ?? null,
      target: f.target,
      horizon_days: Number(f['horizon-days']),
      lens: f.lens,
    };
  } else if (action === 'evaluate' || action === 'abandon') {
    const [id, ...more] = rest;
    if (!id || !/^\d+$/.test(id)) throw new Error(`${action} needs a hypothesis id\n\n${USAGE}`);
    const f = flags(more);
    path = `/admin/research/hypotheses/${id}/${action}`;
    body = action === 'evaluate' ? { verdict: f.verdict, measured_value: f['measured-value'] ?? null } : { verdict: f.verdict ?? null };
  } else {
    out(USAGE);
    return action === undefined || action === 'help' ? 0 : 2;
  }
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  out(JSON.stringify(await response.json(), null, 2));
  return response.ok ? 0 : 1;
}
