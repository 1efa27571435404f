/**
 * proxy_implementation: what an upgradeable proxy delegates to, from its storage slots at the latest
 * block: EIP-1967 (implementation, admin, beacon, whose `implementation()` is then called), EIP-1822
 * (UUPS `PROXIABLE`) and the older OpenZeppelin (zeppelinos) slots. An address that is not a
 * contract, or a contract with none of these slots set, is an answer (`is_proxy: false`), charged.
 * POST with a JSON body, or GET with the same fields as query parameters.
 */
import { z } from 'zod';
import { getAddress, hexToBigInt, keccak256, numberToHex, toHex, type Address, type Hex } from 'viem';
import { READ_EXTERNAL, evmAddress, evmChain, evmChainOf, product } from '../../kit/index.ts';
import type { EvmChainProvider } from '../../../providers/chains.ts';
import { addressOut, callOrRevert, chainIdentity, identity, latestBlockNumber, rpc } from '../evm.ts';

/** keccak256(label) - 1, the EIP-1967 way of making a slot no compiler assigns. */
const eip1967Slot = (label: string): Hex => numberToHex(hexToBigInt(keccak256(toHex(label))) - 1n, { size: 32 });

/** The slots read, in the order a standard wins when several are set. */
export const PROXY_SLOTS = [
  { name: 'eip1967.implementation', standard: 'eip1967', role: 'implementation', slot: eip1967Slot('eip1967.proxy.implementation') },
  { name: 'eip1967.beacon', standard: 'eip1967-beacon', role: 'beacon', slot: eip1967Slot('eip1967.proxy.beacon') },
  { name: 'eip1967.admin', standard: 'eip1967', role: 'admin', slot: eip1967Slot('eip1967.proxy.admin') },
  { name: 'eip1822.proxiable', standard: 'eip1822', role: 'implementation', slot: keccak256(toHex('PROXIABLE')) },
  { name: 'openzeppelin.implementation', standard: 'openzeppelin-legacy', role: 'implementation', slot: keccak256(toHex('org.zeppelinos.proxy.implementation')) },
  { name: 'openzeppelin.admin', standard: 'openzeppelin-legacy', role: 'admin', slot: keccak256(toHex('org.zeppelinos.proxy.admin')) },
] as const;

/** `implementation()`, what an EIP-1967 beacon answers. */
const IMPLEMENTATION_SELECTOR: Hex = '0x5c60da1b';
const STANDARDS = ['eip1967', 'eip1967-beacon', 'eip1822', 'openzeppelin-legacy'] as const;

/** The address in a slot's low 20 bytes; none when the slot is empty or holds more than an address. */
function slotAddress(value: Hex): Address | null {
  const word = hexToBigInt(value);
  if (word === 0n || word >> 160n !== 0n) return null;
  return getAddress(numberToHex(word, { size: 20 }));
}

const hasCode = (code: Hex | null) => code !== null && code !== '0x' && code !== '0x0';

export const proxyImplementation = product({
  id: 'proxy-implementation',
  title: 'Proxy implementation lookup',
  description:
    'Resolves the implementation (and admin or beacon, when set) behind an upgradeable proxy contract from its storage slots: EIP-1967, EIP-1822 (UUPS) and the older OpenZeppelin slots. Also callable with GET and the same fields as query parameters.',
  price: '0.003',
  queryToo: true,
  annotations: READ_EXTERNAL,
  requires: ['evm'],
  input: z.object({
    address: evmAddress().describe('Proxy contract address, 0x + 40 hex characters'),
    chain: evmChain().default('base').describe('Chain of the contract'),
  }),
  inputExample: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', chain: 'base' },
  output: z.object({
    ...chainIdentity,
    address: addressOut().describe('The contract asked about'),
    block_number: z.int().min(0).describe('Block at which the slots were read'),
    is_contract: z.boolean().describe('Whether the address has code'),
    is_proxy: z.boolean().describe('Whether an implementation was found in one of the slots'),
    standard: z.enum(STANDARDS).nullable().describe('Where the implementation was found: eip1967, eip1967-beacon, eip1822 or openzeppelin-legacy; null when none'),
    implementation: addressOut().nullable().describe('The implementation contract the proxy delegates to; null when none'),
    implementation_has_code: z.boolean().nullable().describe('Whether the implementation has code; null when there is none'),
    admin: addressOut().nullable().describe('Admin of the proxy (EIP-1967 or OpenZeppelin admin slot); null when not set'),
    beacon: addressOut().nullable().describe('Beacon of an EIP-1967 beacon proxy; null when not set'),
    slots: z
      .array(
        z.object({
          name: z.enum(PROXY_SLOTS.map((s) => s.name) as [string, ...string[]]).describe('Which slot'),
          slot: z.string().regex(/^0x[0-9a-f]{64}$/).describe('Storage slot, 32 bytes hex'),
          value: z.string().regex(/^0x[0-9a-f]{64}$/).describe('Its value at block_number, 32 bytes hex'),
          address: addressOut().nullable().describe('The address it holds; null when empty or not an address'),
        }),
      )
      .describe('Every slot read, with its raw value'),
  }),
  outputExample: {
    chain: 'base',
    network: 'eip155:31337',
    address: '0xCE3478A9E0167a6Bc5716DC39DbbbfAc38F27623',
    block_number: 14,
    is_contract: true,
    is_proxy: true,
    standard: 'eip1967',
    implementation: '0x261D8c5e9742e6f7f1076Fa1F560894524e19cad',
    implementation_has_code: true,
    admin: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    beacon: null,
    slots: [
      {
        name: 'eip1967.implementation',
        slot: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
        value: '0x000000000000000000000000261d8c5e9742e6f7f1076fa1f560894524e19cad',
        address: '0x261D8c5e9742e6f7f1076Fa1F560894524e19cad',
      },
      {
        name: 'eip1967.beacon',
        slot: '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50',
        value: '0x0000000000000000000000000000000000000000000000000000000000000000',
        address: null,
      },
      {
        name: 'eip1967.admin',
        slot: '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103',
        value: '0x00000000000000000000000090f79bf6eb2c4f870365e785982e1f101e93b906',
        address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      },
      {
        name: 'eip1822.proxiable',
        slot: '0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7',
        value: '0x0000000000000000000000000000000000000000000000000000000000000000',
        address: null,
      },
      {
        name: 'openzeppelin.implementation',
        slot: '0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3',
        value: '0x0000000000000000000000000000000000000000000000000000000000000000',
        address: null,
      },
      {
        name: 'openzeppelin.admin',
        slot: '0x10d6a54a4754c8869d6886b5f5d7fbfa5b4522237ea5c60d11bc4e7a1ff9390b',
        value: '0x0000000000000000000000000000000000000000000000000000000000000000',
        address: null,
      }
    ],
  },
  run: async (input, ctx) => {
    const chain = evmChainOf(ctx, input.chain);
    const address = getAddress(input.address);
    const block = numberToHex(await latestBlockNumber(chain));
    const [code, ...values] = await Promise.all([
      rpc<Hex>(chain, 'eth_getCode', [address, block]),
      ...PROXY_SLOTS.map((s) => rpc<Hex>(chain, 'eth_getStorageAt', [address, s.slot, block])),
    ]);
    const slots = PROXY_SLOTS.map((s, i) => {
      const value = numberToHex(hexToBigInt(values[i] ?? '0x0'), { size: 32 });
      return { ...s, value, address: slotAddress(value) };
    });
    const at = (name: (typeof PROXY_SLOTS)[number]['name']) => slots.find((s) => s.name === name)!.address;
    const beacon = at('eip1967.beacon');
    let found: { standard: (typeof STANDARDS)[number]; implementation: Address } | undefined;
    if (at('eip1967.implementation')) found = { standard: 'eip1967', implementation: at('eip1967.implementation')! };
    else if (beacon) {
      const implementation = await beaconImplementation(chain, beacon, block);
      if (implementation) found = { standard: 'eip1967-beacon', implementation };
    }
    if (!found && at('eip1822.proxiable')) found = { standard: 'eip1822', implementation: at('eip1822.proxiable')! };
    if (!found && at('openzeppelin.implementation')) found = { standard: 'openzeppelin-legacy', implementation: at('openzeppelin.implementation')! };
    const implementationCode = found ? await rpc<Hex>(chain, 'eth_getCode', [found.implementation, block]) : null;
    return {
      ...identity(chain),
      address,
      block_number: Number(hexToBigInt(block)),
      is_contract: hasCode(code),
      is_proxy: found !== undefined,
      standard: found?.standard ?? null,
      implementation: found?.implementation ?? null,
      implementation_has_code: found ? hasCode(implementationCode) : null,
      admin: at('eip1967.admin') ?? at('openzeppelin.admin'),
      beacon,
      slots: slots.map((s) => ({ name: s.name, slot: s.slot, value: s.value, address: s.address })),
    };
  },
});

/** What the beacon's implementation() answers; none when it does not answer with an address. */
async function beaconImplementation(chain: EvmChainProvider, beacon: Address, block: Hex): Promise<Address | null> {
  const result = await callOrRevert(chain, { to: beacon, data: IMPLEMENTATION_SELECTOR }, block);
  return result && /^0x[0-9a-fA-F]{64}$/.test(result) ? slotAddress(result) : null;
}
