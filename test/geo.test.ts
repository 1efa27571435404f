import { describe, expect, it } from 'vitest';
import { countryOf } from '../src/telemetry/geo.ts';

// A local table lookup: no address here is ever contacted.
describe('countryOf', () => {
  it('answers unknown for private, loopback, link-local, reserved and malformed addresses, without a lookup', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '192.168.0.7', '172.16.5.5', '100.64.0.1', '169.254.1.1', '192.0.2.10', '::1', 'fe80::1', 'fd00::1', '2001:db8::1', '::ffff:10.0.0.1', '0.0.0.0', 'not-an-ip', '']) {
      expect(countryOf(ip), ip).toBe('unknown');
    }
    expect(countryOf(undefined)).toBe('unknown');
  });

  it('looks a public address up in the offline table', () => {
    expect(countryOf('8.8.8.8')).toMatch(/^[A-Z]{2}$/);
    expect(countryOf('::ffff:8.8.8.8')).toBe(countryOf('8.8.8.8'));
  });
});
