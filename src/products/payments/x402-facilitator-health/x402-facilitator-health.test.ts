import { describe, expect, it } from 'vitest';
import { SafeFetchError } from '../../../providers/safe-fetch.ts';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { x402FacilitatorHealth } from './index.ts';

const BASE = 'https://facilitator.example.com';
const supported = {
  kinds: [
    { x402Version: 2, scheme: 'exact', network: 'eip155:8453' },
    { x402Version: 1, scheme: 'exact', network: 'base' },
  ],
  extensions: ['bazaar'],
  signers: { 'eip155:*': ['0x209693Bc6afc0C5328bA36FaF03C514EF312287C'] },
};

const probe = async (answers: Parameters<typeof stubFetch>[0], input: Record<string, unknown> = { facilitator_url: BASE }, payments?: { facilitatorUrl?: string }) => {
  const out = await x402FacilitatorHealth.run(x402FacilitatorHealth.input.parse(input), fakeContext({ fetch: stubFetch(answers), ...(payments ? { payments: { verifications: { save: async () => undefined, get: async () => undefined }, ...payments } } : {}) }));
  expect(x402FacilitatorHealth.output.safeParse(out).success).toBe(true);
  return out;
};

describe('x402-facilitator-health', () => {
  it('healthy: fast, TLS, valid kinds, manifest agreeing', async () => {
    const out = await probe({ [`${BASE}/supported`]: response(supported), [`${BASE}/.well-known/x402`]: response({ kinds: supported.kinds }) });
    expect(out).toMatchObject({ status: 'healthy', reasons: [], http_status: 200, tls: true, x402_versions: [1, 2], extensions: ['bazaar'], manifest: { found: true, agrees: true } });
    expect(out.kinds).toEqual([{ x402_version: 2, scheme: 'exact', network: 'eip155:8453' }, { x402_version: 1, scheme: 'exact', network: 'base' }]);
  });

  it('degraded: slow, a lying manifest, malformed kinds; the default URL is this service’s facilitator', async () => {
    const slow = { ...response({ ...supported, kinds: [...supported.kinds, { scheme: 'exact' }] }), latencyMs: 2_000 };
    const out = await probe({ [`${BASE}/supported`]: slow, [`${BASE}/.well-known/x402`]: response({ kinds: [{ x402Version: 2, scheme: 'upto', network: 'eip155:8453' }] }) }, {}, { facilitatorUrl: `${BASE}/` });
    expect(out.status).toBe('degraded');
    expect(out.reasons).toEqual(['1 of the kinds /supported lists are malformed', 'slow: /supported took 2000 ms (over 1500 ms)', 'its /.well-known/x402 manifest disagrees with /supported']);
    expect(out.manifest).toEqual({ found: true, agrees: false, missing_from_supported: ['upto@eip155:8453'], missing_from_manifest: ['exact@base', 'exact@eip155:8453'] });
  });

  it('down: no answer, an error status, not a kinds list; no manifest is not a fault', async () => {
    expect(await probe({ [`${BASE}/supported`]: new SafeFetchError('network_error', 'connection refused') })).toMatchObject({ status: 'down', http_status: null, reasons: ['GET /supported gave no answer (network_error)'] });
    expect(await probe({ [`${BASE}/supported`]: response('oops', { status: 500 }) })).toMatchObject({ status: 'down', http_status: 500 });
    expect(await probe({ [`${BASE}/supported`]: response({ hello: 1 }) })).toMatchObject({ status: 'down' });
    expect(await probe({ [`${BASE}/supported`]: response(supported) })).toMatchObject({ status: 'healthy', manifest: { found: false, agrees: null } });
  });

  it("the caller's URL refused or unresolvable is 422; no URL and no default facilitator URL is 422", async () => {
    await expect(probe({})).rejects.toMatchObject({ status: 422, field: 'facilitator_url' });
    await expect(probe({}, {})).rejects.toMatchObject({ status: 422, field: 'facilitator_url' });
  });
});
