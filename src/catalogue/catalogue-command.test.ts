import { describe, expect, it } from 'vitest';
import { runCatalogueCommand } from './catalogue-command.ts';
import { ALL_PRODUCTS } from './registry.ts';

function run(...args: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = runCatalogueCommand(args, (text) => void (out += text), (text) => void (err += text));
  return { code, out, err };
}

describe('percall catalogue', () => {
  it('prints every product as a table row: id, status, category, route and price, tool and price, mode, rails', () => {
    const { code, out } = run();
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+CATEGORY\s+HTTP\s+PRICE\s+TOOL\s+PRICE\s+MODE\s+RAILS$/);
    for (const p of ALL_PRODUCTS) expect(lines.some((l) => l.startsWith(`${p.id} `)), p.id).toBe(true);
    expect(lines.find((l) => l.startsWith('time '))).toMatch(/^time\s+available\s+utility\s+GET \/api\/v1\/paid\/time\s+0\.01\s+server_time\s+0\.01\s+fixed\s+x402 evm,solana$/);
    expect(lines.find((l) => l.startsWith('inference '))).toMatch(/upto 1\.00/);
    expect(lines.find((l) => l.startsWith('mpp-route '))).toMatch(/x402 evm,solana \+ mpp$/);
    expect(out).toContain(`${ALL_PRODUCTS.length} products, ${ALL_PRODUCTS.filter((p) => p.status === 'available').length} available`);
  });

  it('prints one product by id or by tool name, with its input and output schemas', () => {
    const byTool = run('server_time');
    expect(byTool.code).toBe(0);
    expect(byTool.out).toBe(run('time').out);
    expect(byTool.out).toContain('GET /api/v1/paid/time  0.01 USD');
    expect(byTool.out).toContain('input (JSON Schema):');
    expect(byTool.out).toContain('output (JSON Schema):');
    expect(run('batch-extract').out).toContain('output (JSON Schema, not published):');
    expect(run('prepaid-access-token').out).toContain('status     unavailable (not sold');
    const detail = JSON.parse(run('inference', '--json').out) as Record<string, unknown>;
    expect(detail).toMatchObject({ id: 'inference', status: 'available', requires: ['llm'], mode: 'upto (maximum 1.00 USD)', input: { type: 'object' } });
  });

  it('answers an unknown name with 1 and bad arguments with 2', () => {
    expect(run('no-such-product')).toMatchObject({ code: 1, out: '', err: expect.stringContaining('no product or tool named no-such-product') });
    expect(run('time', 'echo')).toMatchObject({ code: 2, err: expect.stringMatching(/^usage: percall catalogue/) });
  });
});
