import type { Hono } from 'hono';
import type { Catalogue } from '../catalogue/index.ts';
import { PAYER_CLASSES } from '../products/payments/payer-profile/classes.ts';

/** payer_profile's free doors, where the product is on sale: its class rules, and an example profile (a real captured output). */
export function registerPayerProfileRoutes(app: Hono, catalogue: Catalogue): void {
  const product = catalogue.available().find((p) => p.id === 'payer-profile');
  if (!product) return;
  const paid = `the paid call is ${product.http?.method ?? 'POST'} ${product.http?.path ?? ''} or the MCP tool ${product.mcp?.tool ?? ''}`;
  const cache = { 'cache-control': 'public, max-age=300' };
  app.get('/api/v1/payer-profile/classes', (c) =>
    c.json({ note: `ordered rules: the first that holds names the class; ${paid}`, classes: PAYER_CLASSES.map(({ class: name, rule }) => ({ class: name, rule })) }, 200, cache),
  );
  app.get('/api/v1/payer-profile/example', (c) => c.json({ note: `an example profile (a real captured output); ${paid}`, input: product.inputExample, example: product.outputExample }, 200, cache));
}
