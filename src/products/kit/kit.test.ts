import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SafeFetchError } from '../../providers/safe-fetch.ts';
import { FAKE_NOW, fakeContext, response, stubFetch } from './fake-context.ts';
import { READ, domain, planned, product, upto } from './index.ts';

const base = { title: 'Thing', description: 'Returns a thing for the tests of the kit.', inputExample: {} };

describe('product(): defaults and overrides', () => {
  const thing = product({
    ...base,
    id: 'base-thing',
    price: '0.01',
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    outputExample: { ok: true },
    run: async () => ({ ok: true }),
  });

  it('defaults: POST /api/v1/paid/<id>, tool snake_case(id), one price, fixed, x402 on both networks, output schema published', () => {
    expect(thing).toMatchObject({
      status: 'available',
      http: { method: 'POST', path: '/api/v1/paid/base-thing', price: '0.01' },
      mcp: { tool: 'base_thing', price: '0.01' },
      mode: { kind: 'fixed' },
      rails: { x402: ['evm', 'solana'], mpp: false },
      outputSchema: z.toJSONSchema(z.object({ ok: z.boolean() })),
    });
    expect(thing.category).toBeUndefined();
    expect('annotations' in thing.mcp!).toBe(false);
    // Unset optional fields are absent, as in a hand-written declaration.
    expect(Object.keys(thing).sort()).toEqual(['description', 'http', 'id', 'input', 'inputExample', 'mcp', 'mode', 'output', 'outputExample', 'outputSchema', 'rails', 'run', 'status', 'title']);
  });

  it('overrides: method, path, tool, prices per surface, upto, MPP, category, annotations, an unpublished output schema', () => {
    const other = product({
      ...base,
      id: 'other-thing',
      method: 'GET',
      path: '/api/v1/paid/things/other',
      tool: 'thing_tool',
      price: { http: '0.03', mcp: '0.003' },
      mode: upto('1.00'),
      mpp: true,
      category: 'market',
      annotations: READ,
      input: z.object({}),
      output: z.object({}),
      outputExample: {},
      publishOutputSchema: false,
      run: async () => ({}),
    });
    expect(other).toMatchObject({
      http: { method: 'GET', path: '/api/v1/paid/things/other', price: '0.03' },
      mcp: { tool: 'thing_tool', price: '0.003', annotations: { readOnlyHint: true } },
      mode: { kind: 'upto', maximumAuthorization: '1.00' },
      rails: { x402: ['evm', 'solana'], mpp: true },
      category: 'market',
    });
    expect(other.outputSchema).toBeUndefined();
  });

  it('one surface only; a contradiction is refused at declaration', () => {
    const toolOnly = planned({ ...base, id: 'tool-only', http: false, price: '0.05', input: z.object({}) });
    expect(toolOnly.http).toBeUndefined();
    expect(toolOnly.mcp).toEqual({ tool: 'tool_only', price: '0.05' });
    expect(planned({ ...base, id: 'route-only', mcp: false, price: '0.05', input: z.object({}) }).mcp).toBeUndefined();
    expect(() => planned({ ...base, id: 'x', http: false, method: 'GET', price: '0.01', input: z.object({}) })).toThrow('not sold over HTTP');
    expect(() => planned({ ...base, id: 'x', mcp: false, tool: 'x', price: '0.01', input: z.object({}) })).toThrow('not sold as a tool');
    expect(() => planned({ ...base, id: 'x', http: false, mcp: false, price: '0.01', input: z.object({}) })).toThrow('no surface');
  });

  it('planned(): unavailable, not implemented yet unless a reason is given', () => {
    expect(planned({ ...base, id: 'later', price: '0.01', input: z.object({}) })).toMatchObject({ status: 'unavailable', reason: 'not implemented yet' });
    expect(planned({ ...base, id: 'later', price: '0.01', input: z.object({}), reason: 'waiting on an upstream' }).reason).toBe('waiting on an upstream');
  });

  it('domain(): the domain is the category of every product that does not name its own', () => {
    const products = domain('web', [thing, planned({ ...base, id: 'elsewhere', category: 'chain', price: '0.01', input: z.object({}) })]).products;
    expect(products.map((p) => p.category)).toEqual(['web', 'chain']);
    expect(thing.category).toBeUndefined();
  });
});

describe('fakeContext()', () => {
  it('pins the clock, is a paid call with nothing on sale, and gives a live signal', () => {
    const ctx = fakeContext();
    expect(ctx.now).toBe(FAKE_NOW);
    expect(ctx).toMatchObject({ tier: 'paid', catalogue: [] });
    expect(ctx.signal.aborted).toBe(false);
    expect(ctx.browser).toBeUndefined();
    expect(ctx.llm).toBeUndefined();
  });

  it('has no network unless a test gives one: its fetch fails loudly, not as a refused target', async () => {
    await expect(fakeContext().fetch('https://example.com/')).rejects.toThrow(/fakeContext: .*gave no fetch/);
    await expect(fakeContext().fetch('https://example.com/')).rejects.not.toBeInstanceOf(SafeFetchError);
  });

  it('stubFetch answers from its table, records requests, and refuses any other URL as unresolvable', async () => {
    const fetch = stubFetch({ 'https://example.com/a': response({ a: 1 }), 'https://example.com/b': response('<p>b</p>', { url: 'https://example.com/final', status: 201 }) });
    const ctx = fakeContext({ fetch });
    expect(await ctx.fetch('https://example.com/a')).toMatchObject({ url: 'https://example.com/a', status: 200, contentType: 'application/json' });
    expect(await ctx.fetch('https://example.com/b', { method: 'POST' })).toMatchObject({ url: 'https://example.com/final', status: 201, contentType: 'text/html' });
    await expect(ctx.fetch('https://example.com/c')).rejects.toMatchObject({ name: 'SafeFetchError', code: 'unresolvable_host' });
    expect(fetch.requests.map((r) => [r.url, r.request.method])).toEqual([
      ['https://example.com/a', undefined],
      ['https://example.com/b', 'POST'],
      ['https://example.com/c', undefined],
    ]);
  });
});
