import { createRequire } from 'node:module';
import { hashTypedData, hexToBytes, isAddressEqual, keccak256, type Hex, type TypedDataDefinition } from 'viem';

type EcdsaRecover = (signature: Uint8Array, recovery: number, hash: Uint8Array, compressed: boolean) => Uint8Array;

/** libsecp256k1 through the prebuilt binding of the `secp256k1` package, where it loads (linux, darwin, win32). */
const ecdsaRecover: EcdsaRecover | undefined = (() => {
  try {
    return (createRequire(import.meta.url)('secp256k1/bindings') as { ecdsaRecover: EcdsaRecover }).ecdsaRecover;
  } catch {
    return undefined;
  }
})();

/** Half the curve order: signatures with a larger `s` are left to viem (EIP-2: chains refuse them). */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

export type TypedDataSignatureCheck = TypedDataDefinition & { address: Hex; signature: Hex };

/**
 * Whether `signature` is the ECDSA signature of `address` (an externally owned account) over the
 * typed data, recovered by libsecp256k1: the same answer as viem's pure-JS recovery at a small part of
 * its CPU (a paid call's largest single cost; see README, Performance). Only `true` is conclusive:
 * false for whatever it does not take on itself (no native binding, a compact or high-s signature, a
 * contract wallet's signature, a wrong one), which the caller then checks the full way.
 */
export function validByNativeRecovery(check: TypedDataSignatureCheck): boolean {
  if (!ecdsaRecover || typeof check.signature !== 'string' || check.signature.length !== 132) return false;
  try {
    const bytes = hexToBytes(check.signature);
    const v = bytes[64]!;
    const recovery = v >= 27 ? v - 27 : v;
    if (recovery !== 0 && recovery !== 1) return false;
    if (BigInt(`0x${check.signature.slice(66, 130)}`) > HALF_N) return false;
    const hash = hexToBytes(hashTypedData(check as TypedDataDefinition));
    const publicKey = ecdsaRecover(bytes.subarray(0, 64), recovery, hash, false);
    return isAddressEqual(`0x${keccak256(publicKey.subarray(1)).slice(26)}`, check.address);
  } catch {
    return false;
  }
}
