import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hexToBigInt, keccak256, numberToHex, pad, toHex } from 'viem';
import { ProductInputError } from '../../kit/index.ts';
import { fakeChains, fakeContext, stubEvmChain } from '../../kit/fake-context.ts';
import { PROXY_SLOTS, proxyImplementation } from './index.ts';

const PROXY = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const IMPL = '0x2Ce6311ddAE708829bc0784C967b7d77D19FD779';
const ADMIN = '0x4fc7850364958d97B4d3f5A08f79db2493f8cA44';
const BEACON = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const word = (a: string) => pad(a.toLowerCase() as `0x${string}`, { size: 32 });
const slot = (name: string) => PROXY_SLOTS.find((s) => s.name === name)!.slot;

function chain(storage: Record<string, string>, options: { code?: Record<string, string>; beacon?: string; chain?: 'base' | 'ethereum' } = {}) {
  return stubEvmChain(
    {
      eth_blockNumber: '0x64',
      eth_getCode: (params: unknown[]) => options.code?.[(params[0] as string).toLowerCase()] ?? '0x6080',
      eth_getStorageAt: (params: unknown[]) => storage[params[1] as string] ?? `0x${'0'.repeat(64)}`,
      eth_call: () => {
        if (!options.beacon) throw Object.assign(new Error('execution reverted'), { code: 3 });
        return word(options.beacon);
      },
    },
    { chain: options.chain ?? 'base' },
  );
}
const run = (input: Record<string, unknown>, base: ReturnType<typeof chain>) => proxyImplementation.run(proxyImplementation.input.parse(input), fakeContext({ chains: fakeChains({ evm: [base] }) }));

describe('proxy-implementation', () => {
  it('the slots are the standard ones', () => {
    expect(slot('eip1967.implementation')).toBe('0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc');
    expect(slot('eip1967.admin')).toBe('0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103');
    expect(slot('eip1967.beacon')).toBe('0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50');
    expect(slot('eip1822.proxiable')).toBe('0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7');
    expect(slot('openzeppelin.implementation')).toBe(keccak256(toHex('org.zeppelinos.proxy.implementation')));
    expect(slot('openzeppelin.admin')).toBe(keccak256(toHex('org.zeppelinos.proxy.admin')));
  });

  it('an EIP-1967 proxy: implementation and admin, read at one block', async () => {
    const base = chain({ [slot('eip1967.implementation')]: word(IMPL), [slot('eip1967.admin')]: word(ADMIN) });
    const out = await run({ address: PROXY.toLowerCase() }, base);
    expect(out).toMatchObject({ chain: 'base', address: PROXY, block_number: 100, is_contract: true, is_proxy: true, standard: 'eip1967', implementation: IMPL, implementation_has_code: true, admin: ADMIN, beacon: null });
    expect(out.slots).toHaveLength(PROXY_SLOTS.length);
    expect(out.slots.find((s) => s.name === 'eip1967.implementation')).toEqual({ name: 'eip1967.implementation', slot: slot('eip1967.implementation'), value: word(IMPL), address: IMPL });
    expect(base.calls.filter((c) => c.method === 'eth_getStorageAt').every((c) => c.params[2] === '0x64')).toBe(true);
    expect(z.fromJSONSchema(proxyImplementation.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('a beacon proxy, a UUPS (EIP-1822) one and an old OpenZeppelin one', async () => {
    expect(await run({ address: PROXY }, chain({ [slot('eip1967.beacon')]: word(BEACON) }, { beacon: IMPL }))).toMatchObject({ standard: 'eip1967-beacon', implementation: IMPL, beacon: BEACON });
    expect(await run({ address: PROXY }, chain({ [slot('eip1822.proxiable')]: word(IMPL) }))).toMatchObject({ standard: 'eip1822', implementation: IMPL });
    expect(await run({ address: PROXY }, chain({ [slot('openzeppelin.implementation')]: word(IMPL), [slot('openzeppelin.admin')]: word(ADMIN) }))).toMatchObject({ standard: 'openzeppelin-legacy', implementation: IMPL, admin: ADMIN });
  });

  it('not a proxy: no slot set, or an account without code; a slot holding more than an address is no address', async () => {
    expect(await run({ address: PROXY }, chain({}))).toMatchObject({ is_contract: true, is_proxy: false, standard: null, implementation: null, implementation_has_code: null });
    expect(await run({ address: PROXY }, chain({}, { code: { [PROXY.toLowerCase()]: '0x' } }))).toMatchObject({ is_contract: false, is_proxy: false });
    const junk = numberToHex(hexToBigInt(word(IMPL)) | (1n << 200n), { size: 32 });
    expect(await run({ address: PROXY }, chain({ [slot('eip1967.implementation')]: junk }))).toMatchObject({ is_proxy: false });
  });

  it('reads the chain named; a chain this instance does not read is 422 chain_not_configured', async () => {
    const ethereum = chain({ [slot('eip1967.implementation')]: word(IMPL) }, { chain: 'ethereum' });
    expect(await proxyImplementation.run({ address: PROXY, chain: 'ethereum' }, fakeContext({ chains: fakeChains({ evm: [ethereum] }) }))).toMatchObject({ chain: 'ethereum', network: 'eip155:1' });
    const refused = await proxyImplementation.run({ address: PROXY, chain: 'polygon' }, fakeContext({ chains: fakeChains({ evm: [ethereum] }) })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProductInputError);
    expect(refused).toMatchObject({ status: 422, field: 'chain', code: 'chain_not_configured' });
    expect((refused as Error).message).toContain('ethereum');
  });

  it('takes GET with query parameters as well as POST; refuses unknown chains and malformed addresses', () => {
    expect(proxyImplementation.http).toMatchObject({ method: 'POST', queryToo: true });
    expect(proxyImplementation.input.parse({ address: PROXY })).toEqual({ address: PROXY, chain: 'base' });
    expect(proxyImplementation.input.safeParse({ address: PROXY, chain: 'solana' }).success).toBe(false);
    expect(proxyImplementation.input.safeParse({ address: '0x1234' }).success).toBe(false);
  });
});
