import { z } from 'zod';
import { ALL_PRODUCTS } from '../../src/catalogue/all.ts';
import { available, FIXED, X402_BOTH, type Product } from '../../src/catalogue/types.ts';

/** A test product with a strict input schema, to exercise every kind of bad input with a valid payment. */
export const strictProduct = available({
  id: 'test-strict',
  title: 'Strict test product',
  description: 'Test-only product with a strict input schema; returns a greeting.',
  category: 'utility',
  http: { method: 'POST', path: '/api/v1/paid/test-strict', price: '0.02' },
  mode: FIXED,
  rails: X402_BOTH,
  input: z.object({ name: z.string().min(1), count: z.number().int().min(1).max(10), url: z.url() }),
  inputExample: { name: 'ada', count: 2, url: 'https://example.com/' },
  run: async (input) => ({ greeting: `hello ${input.name}`.repeat(input.count), url: input.url }),
});

/** A product whose upstream always fails: it must never be settled. */
export const failingProduct = available({
  id: 'test-failing',
  title: 'Failing test product',
  description: 'Test-only product that always fails.',
  category: 'utility',
  http: { method: 'GET', path: '/api/v1/paid/test-failing', price: '0.01' },
  mode: FIXED,
  rails: X402_BOTH,
  input: z.object({}),
  run: async () => {
    throw new Error('upstream exploded');
  },
});

/** An available product behind a route-scoped proof, to exercise proof and payment together. */
export const provenProduct = available({
  id: 'test-proof',
  title: 'Proof-gated test product',
  description: 'Test-only product that needs a route-scoped proof and a payment; returns the URLs it was given.',
  category: 'web',
  http: { method: 'POST', path: '/api/v1/paid/test-proof', price: '0.01' },
  mode: FIXED,
  rails: X402_BOTH,
  input: z.object({ urls: z.array(z.url()).min(1).max(10), proof: z.union([z.string(), z.record(z.string(), z.unknown())]).optional() }),
  requiresProof: true,
  run: async (input) => ({ urls: input.urls }),
});

export const TEST_PRODUCTS: readonly Product[] = [...ALL_PRODUCTS, strictProduct, failingProduct, provenProduct];
