import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, safeFetch } from '../../providers/safe-fetch.ts';
import { sellerFetchPolicy } from './index.ts';
import { gatewaySellers, operatorSettingsFromEnv } from './settings.ts';

const LISTENING = 'http://127.0.0.1:4021';

describe("the gateway's allowlist", () => {
  it('dev mode without GATEWAY_SELLERS: this instance itself, at the address it listens on', () => {
    const settings = operatorSettingsFromEnv({}, 'dev');
    expect([...gatewaySellers(settings, LISTENING)]).toEqual([['percall', LISTENING]]);
    expect(gatewaySellers(settings, undefined).size).toBe(0);
  });

  it('GATEWAY_SELLERS set (even empty) is the allowlist; production has no default', () => {
    expect([...gatewaySellers(operatorSettingsFromEnv({ GATEWAY_SELLERS: 'clock=http://127.0.0.1:9/' }, 'dev'), LISTENING)]).toEqual([['clock', 'http://127.0.0.1:9']]);
    expect(gatewaySellers(operatorSettingsFromEnv({ GATEWAY_SELLERS: '' }, 'dev'), LISTENING).size).toBe(0);
    expect(gatewaySellers(operatorSettingsFromEnv({}, 'production'), LISTENING).size).toBe(0);
  });
});

describe("a seller's fetch policy", () => {
  it('opens loopback only for a seller on this machine', () => {
    for (const url of ['http://127.0.0.1:4021/api/v1/paid/time', 'http://localhost:9/x', 'http://[::1]:9/x']) expect(sellerFetchPolicy(url, DEFAULT_POLICY).allowLoopback, url).toBe(true);
    for (const url of ['https://seller.invalid/api', 'http://0.0.0.0:9/x', 'not a url']) expect(sellerFetchPolicy(url, DEFAULT_POLICY).allowLoopback, url).toBe(false);
  });

  it('a seller elsewhere whose name leads to this machine is refused before any connection', async () => {
    const policy = { ...sellerFetchPolicy('http://seller.invalid:4021/paid', DEFAULT_POLICY), resolve: async () => [{ address: '127.0.0.1', family: 4 }] };
    await expect(safeFetch('http://seller.invalid:4021/paid', undefined, policy)).rejects.toMatchObject({ code: 'blocked_address' });
  });
});
