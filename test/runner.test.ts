import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Catalogue } from '../src/catalogue/index.ts';
import { available, FIXED, X402_BOTH } from '../src/catalogue/types.ts';
import { ProductRunner, ProductTimeoutError } from '../src/products/runner.ts';
import { DEFAULT_POLICY } from '../src/providers/safe-fetch.ts';

const product = (id: string, run: () => Promise<unknown>) =>
  available({
    id,
    title: id,
    description: id,
    category: 'utility',
    http: { method: 'GET', path: `/api/v1/paid/${id}`, price: '0.01' },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({}),
    run,
  });

describe('the product runner bounds every run', () => {
  const runner = new ProductRunner(new Catalogue([]), DEFAULT_POLICY, undefined, 50);

  it('a product that never finishes (and ignores its signal) ends as ProductTimeoutError at the limit', async () => {
    const hang = product('hang', () => new Promise(() => undefined));
    await expect(runner.run(hang, {}, 'paid')).rejects.toBeInstanceOf(ProductTimeoutError);
  });

  it('a product that fails after the limit leaves no unhandled rejection; one that finishes in time is answered', async () => {
    const late = product('late', () => new Promise((_, reject) => setTimeout(() => reject(new Error('too late')), 80)));
    await expect(runner.run(late, {}, 'paid')).rejects.toBeInstanceOf(ProductTimeoutError);
    expect(await runner.run(product('quick', async () => ({ ok: true })), {}, 'paid')).toEqual({ ok: true });
  });
});
