import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llmDouble } from '../llm.fixture.ts';
import { extractJson } from './index.ts';
import { backtracks, MAX_SCHEMA_DEPTH } from './schema-bounds.ts';

const schema = extractJson.inputExample!.schema as Record<string, unknown>;
const input = (extra: Record<string, unknown> = {}) => extractJson.input.parse({ ...extractJson.inputExample, ...extra });

describe('extract-json: the caller\'s schema, bounded', () => {
  it('refuses oversized, too deep, non-schemas and backtracking patterns as input errors on `schema`', () => {
    const field = (value: unknown) => {
      const parsed = extractJson.input.safeParse({ text: 'x', schema: value });
      return parsed.success ? undefined : parsed.error.issues[0]!.path.join('.');
    };
    expect(field(schema)).toBeUndefined();
    expect(field({ type: 'object', description: 'x'.repeat(20_001) })).toBe('schema');
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < MAX_SCHEMA_DEPTH; i++) deep = { type: 'object', properties: { a: deep } };
    expect(field(deep)).toBe('schema');
    expect(field({ type: 'nonsense' })).toBe('schema');
    expect(field({ type: 'string', pattern: '^(a+)+$' })).toBe('schema');
    expect(backtracks('^(a|aa)*$')).toBe(true);
    expect(backtracks('^[a-z]+(-[a-z]+)*$')).toBe(true);
    expect(backtracks('^\\d{4}-\\d{2}-\\d{2}$')).toBe(false);
    expect(backtracks('^(ab)+$')).toBe(false);
  });

  it('a schema that does not compile is refused before payment (400 on schema)', async () => {
    await expect(extractJson.precheck!(input({ schema: { $ref: 'https://schemas.invalid/x.json' } }), { now: new Date() })).rejects.toMatchObject({ status: 400, field: 'schema' });
  });
});

describe('extract-json (against the OpenAI-wire double)', () => {
  let t: Awaited<ReturnType<typeof llmDouble>>;
  beforeAll(async () => void (t = await llmDouble()));
  afterAll(() => t.double.close());

  it('returns the model\'s answer when it validates', async () => {
    t.double.reply = () => '{"invoice": "1042", "vendor": "Acme Ltd", "total": 12.5}';
    const out = await extractJson.run(input(), t.ctx());
    expect(out).toEqual(extractJson.outputExample);
    expect(t.messagesOf(-1)[0]!.content).toContain(JSON.stringify(schema));
  });

  it('asks once more with the validation errors, and takes the corrected answer', async () => {
    let calls = 0;
    t.double.reply = () => (++calls === 1 ? '{"invoice": 1042, "vendor": "Acme Ltd"}' : '{"invoice": "1042", "vendor": "Acme Ltd", "total": 12.5}');
    const out = await extractJson.run(input(), t.ctx());
    expect(out).toMatchObject({ attempts: 2, data: { invoice: '1042', total: 12.5 } });
    const retry = t.messagesOf(-1).at(-1)!.content;
    expect(retry).toContain('/invoice must be string');
    expect(retry).toContain("must have required property 'total'");
  });

  it('a schema the model never meets is a 502 after the one retry', async () => {
    t.double.reply = () => '{"invoice": "1042", "vendor": "Acme Ltd", "total": 12.5}';
    const before = t.double.requests.length;
    const never = { type: 'object', properties: { answer: { const: 'never said' } }, required: ['answer'] };
    await expect(extractJson.run(input({ schema: never }), t.ctx())).rejects.toMatchObject({ name: 'UpstreamError', status: 502 });
    expect(t.double.requests.length - before).toBe(2);
  });
});
