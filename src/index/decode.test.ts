import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, pad, toEventSelector, toHex } from 'viem';
import { TOPICS, INT128_MAX, decodeBundle, rowCount, type BlockBundle, type RpcLog } from './decode.ts';

const A = '0x1111111111111111111111111111111111111111';
const B = '0x2222222222222222222222222222222222222222';
const TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const TX = `0x${'ab'.repeat(32)}`;
const topic = (address: string) => pad(address.toLowerCase() as `0x${string}`, { size: 32 });

function bundle(logs: Omit<RpcLog, 'transactionHash' | 'transactionIndex' | 'logIndex'>[], extra: Partial<BlockBundle['block']> = {}): BlockBundle {
  return {
    block: {
      number: '0x10',
      hash: `0x${'0f'.repeat(32)}`,
      parentHash: `0x${'0e'.repeat(32)}`,
      timestamp: '0x6650a800',
      baseFeePerGas: '0x3b9aca00',
      gasUsed: '0x5208',
      gasLimit: '0x1c9c380',
      miner: '0xAbCdEf0000000000000000000000000000000001',
      transactions: [{ hash: TX.toUpperCase().replace('0X', '0x'), from: A, to: B, value: '0xde0b6b3a7640000', nonce: '0x7', input: '0xa9059cbb0000', type: '0x2', transactionIndex: '0x0' }],
      ...extra,
    },
    receipts: [
      {
        transactionHash: TX,
        transactionIndex: '0x0',
        status: '0x1',
        gasUsed: '0x5208',
        effectiveGasPrice: '0x3b9aca07',
        contractAddress: null,
        logs: logs.map((log, i) => ({ ...log, transactionHash: TX, transactionIndex: '0x0', logIndex: toHex(i) })),
      },
    ],
  };
}

describe('decoding blocks into index rows', () => {
  it('the event signatures are the keccak hashes of the events the index decodes', () => {
    expect(TOPICS.transfer).toBe(toEventSelector('Transfer(address,address,uint256)'));
    expect(TOPICS.transferSingle).toBe(toEventSelector('TransferSingle(address,address,address,uint256,uint256)'));
    expect(TOPICS.transferBatch).toBe(toEventSelector('TransferBatch(address,address,address,uint256[],uint256[])'));
    expect(TOPICS.swapV2).toBe(toEventSelector('Swap(address,uint256,uint256,uint256,uint256,address)'));
    expect(TOPICS.swapV3).toBe(toEventSelector('Swap(address,address,int256,int256,uint160,uint128,int24)'));
  });

  it('a block, its transaction and receipt: lowercase hex, exact integers, UTC micros', () => {
    const rows = decodeBundle(bundle([]));
    expect(rows.blocks).toEqual([[16n, `0x${'0f'.repeat(32)}`, `0x${'0e'.repeat(32)}`, 0x6650a800n * 1_000_000n, 1_000_000_000n, 21_000n, 30_000_000n, 1, '0xabcdef0000000000000000000000000000000001']]);
    expect(rows.transactions).toEqual([[16n, 0x6650a800n * 1_000_000n, 0, TX, A, B, 10n ** 18n, null, 7n, 21_000n, 1_000_000_007n, true, 2, '0xa9059cbb', null]]);
  });

  it('ERC-20 transfers (3 topics) and ERC-721 transfers (4 topics) of the same signature go to their own tables', () => {
    const rows = decodeBundle(
      bundle([
        { address: TOKEN, topics: [TOPICS.transfer, topic(A), topic(B)], data: encodeAbiParameters([{ type: 'uint256' }], [1_500_000n]) },
        { address: B, topics: [TOPICS.transfer, topic(A), topic(B), pad(toHex(42n), { size: 32 })], data: '0x' },
      ]),
    );
    expect(rows.erc20_transfers).toEqual([[16n, 0x6650a800n * 1_000_000n, TX, 0, TOKEN.toLowerCase(), A, B, 1_500_000n, null]]);
    expect(rows.erc721_transfers).toEqual([[16n, 0x6650a800n * 1_000_000n, TX, 1, B, A, B, 42n, null]]);
    expect(rows.logs).toHaveLength(2);
    expect(rows.logs[0]!.slice(5)).toEqual([TOKEN.toLowerCase(), TOPICS.transfer, topic(A), topic(B), null, encodeAbiParameters([{ type: 'uint256' }], [1_500_000n])]);
  });

  it('amounts of 2^127 and more are NULL in the integer column and exact in the _raw column', () => {
    const huge = 2n ** 255n + 12345n;
    const rows = decodeBundle(bundle([{ address: TOKEN, topics: [TOPICS.transfer, topic(A), topic(B)], data: encodeAbiParameters([{ type: 'uint256' }], [huge]) }]));
    expect(rows.erc20_transfers[0]!.slice(7)).toEqual([null, huge.toString()]);
    const edge = decodeBundle(bundle([{ address: TOKEN, topics: [TOPICS.transfer, topic(A), topic(B)], data: encodeAbiParameters([{ type: 'uint256' }], [INT128_MAX]) }]));
    expect(edge.erc20_transfers[0]!.slice(7)).toEqual([INT128_MAX, null]);
  });

  it('ERC-1155 single and batch transfers: one row per token id', () => {
    const single = encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [7n, 3n]);
    const batch = encodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], [[1n, 2n], [10n, 20n]]);
    const rows = decodeBundle(
      bundle([
        { address: TOKEN, topics: [TOPICS.transferSingle, topic(A), topic(A), topic(B)], data: single },
        { address: TOKEN, topics: [TOPICS.transferBatch, topic(A), topic(B), topic(A)], data: batch },
      ]),
    );
    expect(rows.erc1155_transfers.map((r) => r.slice(3))).toEqual([
      [0, 0, TOKEN.toLowerCase(), A, A, B, 7n, null, 3n, null],
      [1, 0, TOKEN.toLowerCase(), A, B, A, 1n, null, 10n, null],
      [1, 1, TOKEN.toLowerCase(), A, B, A, 2n, null, 20n, null],
    ]);
  });

  it('Uniswap v2 and v3 swaps, signed amounts and ticks included', () => {
    const v2 = encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }], [100n, 0n, 0n, 95n]);
    const v3 = encodeAbiParameters(
      [{ type: 'int256' }, { type: 'int256' }, { type: 'uint160' }, { type: 'uint128' }, { type: 'int24' }],
      [-500n, 1_000n, 2n ** 96n, 123_456n, -887_272],
    );
    const rows = decodeBundle(
      bundle([
        { address: A, topics: [TOPICS.swapV2, topic(B), topic(A)], data: v2 },
        { address: B, topics: [TOPICS.swapV3, topic(A), topic(B)], data: v3 },
      ]),
    );
    expect(rows.uniswap_v2_swaps[0]!.slice(4)).toEqual([A, B, A, 100n, 0n, 0n, 95n]);
    expect(rows.uniswap_v3_swaps[0]!.slice(4)).toEqual([B, A, B, -500n, 1_000n, 2n ** 96n, 123_456n, -887_272]);
  });

  it('malformed events stay in logs only', () => {
    const rows = decodeBundle(
      bundle([
        { address: TOKEN, topics: [TOPICS.transfer, topic(A)], data: '0x' },
        { address: TOKEN, topics: [TOPICS.transferBatch, topic(A), topic(B), topic(A)], data: '0x1234' },
        { address: TOKEN, topics: [], data: '0x' },
      ]),
    );
    expect(rows.logs).toHaveLength(3);
    expect(rows.logs[2]![6]).toBeNull();
    expect(rowCount(rows)).toBe(1 + 1 + 3);
  });

  it('a transaction without its receipt is an error, not a silent gap', () => {
    const b = bundle([]);
    b.receipts = [];
    expect(() => decodeBundle(b)).toThrow(/no receipt/);
  });
});
