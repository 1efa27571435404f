/**
 * `percall catalogue [id|tool] [--json]`: the catalogue as declared in the registry, without
 * starting anything. Products that need an upstream (`requires`) are on sale only where it is
 * configured; the running service's /llms.txt lists what one instance sells.
 */
import { z } from 'zod';
import type { Product } from '../products/kit/index.ts';
import { DOMAINS } from './registry.ts';
import { catalogueSnapshot, railsOf } from './snapshot.ts';

const USAGE = 'usage: percall catalogue [ID|TOOL] [--json]   the whole catalogue as a table, or one product in detail';

export function runCatalogueCommand(
  args: string[],
  write: (text: string) => void = (text) => void process.stdout.write(text),
  writeError: (text: string) => void = (text) => void process.stderr.write(text),
): number {
  const json = args.includes('--json');
  const [name, ...rest] = args.filter((a) => a !== '--json');
  if (rest.length > 0 || name?.startsWith('-')) {
    writeError(`${USAGE}\n`);
    return 2;
  }
  const products = DOMAINS.flatMap((d) => d.products);
  if (name === undefined) {
    write(json ? `${JSON.stringify(catalogueSnapshot(DOMAINS), null, 2)}\n` : table(products));
    return 0;
  }
  const product = products.find((p) => p.id === name || p.mcp?.tool === name);
  if (!product) {
    writeError(`no product or tool named ${name} (npx percall catalogue lists them)\n`);
    return 1;
  }
  write(json ? `${JSON.stringify(detail(product), null, 2)}\n` : describe(product));
  return 0;
}

function table(products: readonly Product[]): string {
  const header = ['ID', 'STATUS', 'CATEGORY', 'HTTP', 'PRICE', 'TOOL', 'PRICE', 'MODE', 'RAILS'];
  const rows = products.map((p) => [
    p.id,
    p.status,
    p.category,
    p.http ? `${p.http.method} ${p.http.path}` : '-',
    p.http?.price ?? '-',
    p.mcp?.tool ?? '-',
    p.mcp?.price ?? '-',
    p.mode.kind === 'upto' ? `upto ${p.mode.maximumAuthorization}` : 'fixed',
    railsOf(p),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `${cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}\n`;
  const onSale = products.filter((p) => p.status === 'available').length;
  return `${line(header)}${rows.map(line).join('')}\n${products.length} products, ${onSale} available (prices in USD per call)\n`;
}

function detail(p: Product) {
  return {
    id: p.id,
    title: p.title,
    status: p.status,
    ...(p.status === 'unavailable' ? { reason: p.reason } : {}),
    category: p.category,
    ...(p.http ? { http: p.http } : {}),
    ...(p.mcp ? { mcp: p.mcp } : {}),
    mode: mode(p),
    rails: railsOf(p),
    ...(p.requires ? { requires: p.requires } : {}),
    ...(p.requiresProof ? { requiresProof: true } : {}),
    ...(p.freeTier ? { freeTier: p.freeTier } : {}),
    ...(p.freeDoors ? { freeDoors: p.freeDoors } : {}),
    description: p.description,
    input: inputSchema(p),
    ...(p.inputExample ? { inputExample: p.inputExample } : {}),
    ...(outputSchema(p) ? { output: outputSchema(p) } : {}),
    outputPublished: p.outputSchema !== undefined,
    ...(p.outputExample !== undefined ? { outputExample: p.outputExample } : {}),
  };
}

function describe(p: Product): string {
  const d = detail(p);
  const lines = [
    `${p.id}: ${p.title}`,
    `  status     ${p.status}${p.status === 'unavailable' ? ` (${p.reason})` : ''}`,
    `  category   ${p.category}`,
    `  http       ${p.http ? `${p.http.method} ${p.http.path}  ${p.http.price} USD` : '-'}`,
    `  tool       ${p.mcp ? `${p.mcp.tool}  ${p.mcp.price} USD` : '-'}`,
    `  mode       ${d.mode}`,
    `  rails      ${d.rails}`,
    ...(p.requires ? [`  requires   ${p.requires.join(', ')} (on sale only where configured)`] : []),
    ...(p.requiresProof ? ['  proof      a route-scoped proof (PROOF-REQUEST) besides payment'] : []),
    ...(p.freeTier ? [`  free tier  ${p.freeTier.note}`] : []),
    ...(p.freeDoors ?? []).map((door) => `  free door  ${door.method} ${door.path}: ${door.note}`),
    '',
    p.description,
    '',
    'input (JSON Schema):',
    JSON.stringify(d.input, null, 2),
    ...(p.inputExample ? ['', 'input example:', JSON.stringify(p.inputExample, null, 2)] : []),
    '',
    d.output ? `output (JSON Schema${d.outputPublished ? '' : ', not published'}):` : 'output: no schema declared',
    ...(d.output ? [JSON.stringify(d.output, null, 2)] : []),
    ...(p.outputExample !== undefined ? ['', 'output example:', JSON.stringify(p.outputExample, null, 2)] : []),
  ];
  return `${lines.join('\n')}\n`;
}

function mode(p: Product): string {
  return p.mode.kind === 'upto' ? `upto (maximum ${p.mode.maximumAuthorization} USD)` : 'fixed';
}

/** As discovery publishes it: the input side, without the dialect. */
function inputSchema(p: Product): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(p.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return schema;
}

function outputSchema(p: Product): Record<string, unknown> | undefined {
  const schema = p.outputSchema ?? (p.output ? (z.toJSONSchema(p.output, { unrepresentable: 'any' }) as Record<string, unknown>) : undefined);
  if (!schema) return undefined;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}
