import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { llmDouble } from '../../text/llm.fixture.ts';
import { compilePaymentPolicy } from './index.ts';

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
/** A seller's 402 as x402 v2 clients decode it. */
const quote = (url: string, amount: string, network = 'eip155:8453', asset = BASE_USDC, description = 'A product') => ({
  x402Version: 2,
  resource: { url, description, mimeType: 'application/json' },
  accepts: [{ scheme: 'exact', network, amount, asset, payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } }],
});

describe('compile-payment-policy (structured rules)', () => {
  it('compiles the policy, the SDK spend controls and tests sample 402s against it', async () => {
    const value = compilePaymentPolicy.input.parse({
      rules: { per_call_max_usd: '0.05', daily_max_usd: '2', networks: ['base'], blocked_hosts: ['*.bad.invalid'], blocked_products: ['People-Search'] },
      samples: [
        quote('https://api.good.invalid/api/v1/paid/time', '10000'),
        quote('https://api.good.invalid/api/v1/paid/expensive', '60000'),
        quote('https://x.bad.invalid/paid', '10000'),
        quote('https://api.good.invalid/api/v1/paid/people-search', '10000'),
        quote('https://api.good.invalid/sol', '10000', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
      ],
    });
    const out = await compilePaymentPolicy.run(value, fakeContext());
    expect(compilePaymentPolicy.output.parse(out)).toEqual(out);
    expect(out.method).toBe('structured');
    expect(out.policy).toEqual({
      version: 'percall-payment-policy/v1',
      per_call_max_usd: '0.05',
      budgets: [{ period: 'day', max_usd: '2' }],
      networks: ['eip155:8453'],
      allowed_hosts: null,
      blocked_hosts: ['*.bad.invalid'],
      blocked_products: ['people-search'],
    });
    expect(out.x402_client).toEqual({
      spendControls: { maxAmountPerPayment: '$0.05', allowedAssets: [{ network: 'eip155:8453', asset: BASE_USDC.toLowerCase(), maxAmountPerPayment: '50000' }] },
      networks: ['eip155:8453'],
    });
    expect(out.tests.map((t) => t.decision)).toEqual(['allow', 'deny', 'deny', 'deny', 'deny']);
    expect(out.tests[1]!.options[0]!.reasons).toEqual(['0.06 USD is over the per-call cap of 0.05']);
    expect(out.tests[2]!.reasons).toContain('host x.bad.invalid is blocked');
    expect(out.tests[3]!.reasons).toContain('the resource matches the blocked product "people-search"');
    expect(out.tests[4]!.options[0]!.reasons).toEqual(['network solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp is not allowed']);
    expect(out.policy_schema).toMatchObject({ type: 'object', required: expect.arrayContaining(['version', 'budgets']) });
    expect(out.ambiguities).toEqual([]);
  });

  it('says what it could not take as given', async () => {
    const out = await compilePaymentPolicy.run(compilePaymentPolicy.input.parse({ rules: { per_call_max_usd: '5', daily_max_usd: '1', networks: ['narnia'], allowed_hosts: ['a.invalid'], blocked_hosts: ['a.invalid'] } }), fakeContext());
    expect(out.ambiguities).toEqual([
      'network "narnia" is not one this compiler knows (use a CAIP-2 id); left out',
      'no network left: nothing can be paid',
      'the day budget (1) is below the per-call cap (5): no single call can cost more than the budget',
      'host a.invalid is both allowed and blocked: blocked wins',
    ]);
  });

  it('refuses before payment: neither or both of rules and policy; plain language without the upstream; malformed amounts', async () => {
    await expect(compilePaymentPolicy.precheck!(compilePaymentPolicy.input.parse({}), { now: new Date() })).rejects.toMatchObject({ status: 400, field: 'rules' });
    await expect(compilePaymentPolicy.precheck!(compilePaymentPolicy.input.parse({ policy: 'at most 1 USD a day' }), { now: new Date() })).rejects.toMatchObject({ code: 'llm_not_configured', field: 'policy' });
    expect(compilePaymentPolicy.input.safeParse({ rules: { per_call_max_usd: '-1' } }).success).toBe(false);
    expect(compilePaymentPolicy.input.safeParse({ rules: { per_call_max_usd: '0.05', surprise: true } }).success).toBe(false);
  });
});

describe('compile-payment-policy (plain language, against the OpenAI-wire double)', () => {
  let t: Awaited<ReturnType<typeof llmDouble>>;
  beforeAll(async () => void (t = await llmDouble()));
  afterAll(() => t.double.close());

  it('the model reads the rules (checked against their schema, asked again once), then the same compiler runs', async () => {
    let calls = 0;
    t.double.reply = () => (++calls === 1 ? '{"per_call_max_usd": 0.05}' : '{"per_call_max_usd": "0.05", "daily_max_usd": "2", "networks": ["base"]}');
    const out = await compilePaymentPolicy.run(compilePaymentPolicy.input.parse({ policy: 'Spend at most 2 USD a day, never more than 0.05 per call, only on Base.' }), t.ctx());
    expect(calls).toBe(2);
    expect(out).toMatchObject({ method: 'llm', model: 'openai/gpt-4.1-mini', rules: { per_call_max_usd: '0.05', daily_max_usd: '2', networks: ['base'] }, policy: { networks: ['eip155:8453'] } });
    expect(t.messagesOf(-1)[1]!.content).toContain('<policy>\nSpend at most 2 USD a day');
  });
});
