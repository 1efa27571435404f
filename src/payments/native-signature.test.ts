import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyTypedData, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { validByNativeRecovery } from './native-signature.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const types = { Transfer: [{ name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'memo', type: 'string' }] } as const;
const domain = { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913' } as const;

const key = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex).filter((k) => BigInt(k) > 0n && BigInt(k) < N);
const message = fc.record({ to: fc.constant('0x000000000000000000000000000000000000dEaD' as Hex), value: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), memo: fc.string() });

describe('validByNativeRecovery', () => {
  it('agrees with viem on genuine signatures and refuses a changed message, another address, high-s and compact forms', async () => {
    await fc.assert(
      fc.asyncProperty(key, message, async (privateKey, msg) => {
        const account = privateKeyToAccount(privateKey);
        const typed = { domain, types, primaryType: 'Transfer' as const, message: msg };
        const signature = await account.signTypedData(typed);
        const check = { ...typed, address: account.address, signature };
        expect(validByNativeRecovery(check)).toBe(true);
        expect(await verifyTypedData(check)).toBe(true);
        expect(validByNativeRecovery({ ...check, message: { ...msg, value: msg.value ^ 1n } })).toBe(false);
        expect(validByNativeRecovery({ ...check, address: '0x000000000000000000000000000000000000dEaD' })).toBe(false);
        // The same signature with s' = n - s and the other recovery id: valid math, left to viem.
        const s = BigInt(`0x${signature.slice(66, 130)}`);
        const v = parseInt(signature.slice(130), 16);
        const high = `${signature.slice(0, 66)}${(N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
        expect(validByNativeRecovery({ ...check, signature: high })).toBe(false);
        expect(validByNativeRecovery({ ...check, signature: signature.slice(0, 130) as Hex })).toBe(false);
      }),
      { numRuns: 10, seed: 7 },
    );
  });
});
