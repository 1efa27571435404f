import { describe, expect, it } from 'vitest';
import { publicReason } from '../src/payments/failures.ts';
import { describeError } from '../src/log.ts';
import { paymentKey } from '../src/payments/payment-key.ts';
import { atomicToUsd, usdToAtomic } from '../src/money.ts';

describe('what reaches callers and logs', () => {
  it('facilitator reasons pass only as short machine codes', () => {
    expect(publicReason('invalid_exact_evm_payload_signature', 'payment_verification_failed')).toBe('invalid_exact_evm_payload_signature');
    expect(publicReason('HTTP request failed. URL: https://base.rpc.example/v2/SECRETKEY', 'settlement_failed')).toBe('settlement_failed');
    expect(publicReason(undefined, 'settlement_failed')).toBe('settlement_failed');
  });

  it('logged errors lose their URLs (RPC URLs carry API keys)', () => {
    const text = describeError(new Error('HTTP request failed.\nURL: https://base-mainnet.example/v2/SECRETKEY?x=1\nRequest body: {}'));
    expect(text).not.toContain('SECRETKEY');
    expect(text).toContain('[url]');
    expect(describeError('not an error')).toBe('unknown error');
  });
});

describe('payment identity', () => {
  const base = {
    x402Version: 2,
    accepted: { scheme: 'exact', network: 'eip155:8453' as const, asset: '0xAbC', amount: '10000', payTo: '0x1', maxTimeoutSeconds: 300, extra: {} },
  };
  it('an EIP-3009 authorization is identified by network, token, payer and nonce, whatever else changes', () => {
    const a = paymentKey({ ...base, payload: { authorization: { from: '0xF00', nonce: '0xAA', value: '1' }, signature: '0x1' } });
    const b = paymentKey({ ...base, payload: { signature: '0x2', authorization: { nonce: '0xaa', from: '0xf00', value: '2' } } });
    expect(a).toBe(b);
    expect(a).toBe('eip3009:eip155:8453:0xabc:0xf00:0xaa');
  });
  it('other payloads hash their content independently of key order', () => {
    expect(paymentKey({ ...base, payload: { a: 1, b: [1, { c: 2, d: 3 }] } })).toBe(paymentKey({ ...base, payload: { b: [1, { d: 3, c: 2 }], a: 1 } }));
  });
});

describe('money', () => {
  it('converts USD strings to atomic units exactly', () => {
    expect(usdToAtomic('0.01')).toBe(10_000n);
    expect(usdToAtomic('0.001079')).toBe(1_079n);
    expect(usdToAtomic('1.00')).toBe(1_000_000n);
    expect(atomicToUsd(1_187n)).toBe('0.001187');
    expect(atomicToUsd(10_000n)).toBe('0.01');
    expect(() => usdToAtomic('0.0000001')).toThrow();
    expect(() => usdToAtomic('-1')).toThrow();
  });
});
