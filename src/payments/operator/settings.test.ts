import { describe, expect, it } from 'vitest';
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
