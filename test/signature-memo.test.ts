import { describe, expect, it } from 'vitest';
import { rememberValidSignatures } from '../src/payments/signature-memo.ts';

describe('rememberValidSignatures', () => {
  it('asks the check once for a valid signature, every time for an invalid one, and tells arguments apart', async () => {
    const asked: unknown[] = [];
    const check = rememberValidSignatures(async (args: { signature: string; value: bigint }) => {
      asked.push(args);
      return args.signature === 'good';
    });
    expect(await check({ signature: 'good', value: 1n })).toBe(true);
    expect(await check({ signature: 'good', value: 1n })).toBe(true);
    expect(asked).toHaveLength(1);
    expect(await check({ signature: 'good', value: 2n })).toBe(true);
    expect(asked).toHaveLength(2);
    expect(await check({ signature: 'bad', value: 1n })).toBe(false);
    expect(await check({ signature: 'bad', value: 1n })).toBe(false);
    expect(asked).toHaveLength(4);
  });

  it('forgets the oldest beyond its size', async () => {
    let asked = 0;
    const check = rememberValidSignatures(async (_: number) => (asked++, true), { max: 2 });
    await check(1);
    await check(2);
    await check(3);
    await check(1);
    expect(asked).toBe(4);
  });
});
