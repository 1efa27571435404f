/**
 * base_transfer_search: ERC-20 transfers to and/or from a Base address, read from the block index:
 * any block range the index holds (the whole index by default), newest first, a page of `limit`
 * at a time. `next_cursor` continues the same search (its range fixed at the first page's), and
 * is bound to that search: used with other fields it is refused before payment (400, `cursor`).
 *
 * A range outside the index (a block not indexed yet, or before the index starts) is 422 naming the
 * field, never charged; the index not running or failing is 502/503/504, never charged.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { getAddress } from 'viem';
import { ProductInputError, READ_EXTERNAL, product } from '../../kit/index.ts';
import { addressOut, chainIdentity, weiString } from '../evm.ts';
import { indexRows, indexedChain, indexedRange, indexedRangeSchema, requireIndexed, sqlAddress, sqlInt, isoTime } from '../index-read.ts';
import { transferSearchExample, transferSearchInput } from '../transfer-search.ts';

/** What a cursor carries: where the last page ended, the range searched, and which search it belongs to. */
interface Cursor {
  /** Digest of the search's fields (address, direction, token, from_block). */
  k: string;
  /** Block and log index of the last transfer listed. */
  b: number;
  l: number;
  /** The last block searched, fixed by the first page. */
  t: number;
}

type Search = Pick<z.output<typeof transferSearchInput>, 'address' | 'direction' | 'token_address' | 'from_block'>;

/** The search a cursor belongs to (its fields as the caller gave them, normalised). */
function searchKey(s: Search): string {
  const text = [s.address.toLowerCase(), s.direction, s.token_address?.toLowerCase() ?? '', s.from_block ?? ''].join('|');
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string): Cursor | undefined {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor>;
    const whole = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
    if (typeof value.k === 'string' && whole(value.b) && whole(value.l) && whole(value.t)) return value as Cursor;
  } catch {
    // not ours: refused below
  }
  return undefined;
}

const input = transferSearchInput
  .extend({
    from_block: z.int().min(0).optional().describe('First block to search (inclusive); default the first indexed block'),
    to_block: z.int().min(0).optional().describe('Last block to search (inclusive); default the last indexed block'),
    cursor: z.string().max(200).optional().describe('next_cursor of the previous page, to continue the same search (the other fields unchanged)'),
  })
  .superRefine((value, ctx) => {
    if (value.cursor === undefined) return;
    const cursor = decodeCursor(value.cursor);
    if (!cursor) ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'not a cursor of this search (pass next_cursor as it was returned)' });
    else if (cursor.k !== searchKey(value)) ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'this cursor belongs to another search: keep address, direction, token_address and from_block as on the first page' });
    else if (value.to_block !== undefined && value.to_block !== cursor.t) ctx.addIssue({ code: 'custom', path: ['to_block'], message: `the search this cursor continues ends at block ${cursor.t}` });
  });

const transfer = z.object({
  tx_hash: z.string().describe('Transaction of the transfer'),
  log_index: z.int().min(0).describe('Position of its Transfer log in the block'),
  block_number: z.int().min(0).describe('Block of the transfer'),
  block_time: isoTime().describe('Time of that block (UTC)'),
  token: addressOut().describe('ERC-20 contract'),
  from: addressOut().describe('Sender (0x000… for a mint)'),
  to: addressOut().describe('Recipient (0x000… for a burn)'),
  direction: z.enum(['in', 'out', 'self']).describe('in: to the address; out: from it; self: both'),
  amount_atomic: weiString().describe('Amount in the token’s smallest unit, an exact decimal string'),
});

export const baseTransferSearch = product({
  id: 'base-transfer-search',
  title: 'Base token transfer search',
  description:
    'Searches indexed ERC-20 transfers on Base to or from an address, optionally for one token and block range (any range the index holds); returns the matching transfers (hash, block, time, from, to, token, exact amount), newest first, a page at a time with a cursor.',
  price: '0.005',
  annotations: READ_EXTERNAL,
  requires: ['index'],
  input,
  inputExample: transferSearchExample,
  output: z.object({
    ...chainIdentity,
    address: addressOut().describe('The address searched'),
    direction: z.enum(['in', 'out', 'both']).describe('Which transfers were searched'),
    token_address: addressOut().nullable().describe('The token searched; null for all tokens'),
    from_block: z.int().min(0).describe('First block searched'),
    to_block: z.int().min(0).describe('Last block searched (fixed for every page of the search)'),
    transfers: z.array(transfer).describe('Matching transfers of this page, newest first (by block, then log index), at most `limit`'),
    count: z.int().min(0).describe('Transfers on this page'),
    next_cursor: z.string().nullable().describe('Pass as `cursor` (other fields unchanged) for the next page; null on the last page'),
    indexed: indexedRangeSchema(),
  }),
  // Captured from the dev chain (anvil as `base`, eip155:31337) in test/chain-index-products.test.ts.
  outputExample: {
    "chain": "base",
    "network": "eip155:31337",
    "address": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
    "direction": "both",
    "token_address": null,
    "from_block": 0,
    "to_block": 31,
    "transfers": [
      {
        "tx_hash": "0x412f80d50501a5d16e2af09b34cd9c59f30b6920f3f447070cc30e06aed4f90e",
        "log_index": 0,
        "block_number": 28,
        "block_time": "2026-11-23T22:57:53.000Z",
        "token": "0x0165878A594ca255338adfa4d48449f69242Eb8F",
        "from": "0x8A791620dd6260079BF849Dc5567aDC3F2FdC318",
        "to": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "direction": "in",
        "amount_atomic": "4533054469400745657906"
      },
      {
        "tx_hash": "0x7651de976b6b0aa03f255dd71ab59483636c55cbee5ab161b0f819c769ef9f43",
        "log_index": 0,
        "block_number": 27,
        "block_time": "2026-11-23T22:57:53.000Z",
        "token": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "from": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "to": "0x8A791620dd6260079BF849Dc5567aDC3F2FdC318",
        "direction": "out",
        "amount_atomic": "5000000"
      },
      {
        "tx_hash": "0x5043c9934044747909cee928a2166423a9ead7eb2e227f8f8867204c4092bf75",
        "log_index": 0,
        "block_number": 16,
        "block_time": "2026-11-23T22:57:53.000Z",
        "token": "0x0165878A594ca255338adfa4d48449f69242Eb8F",
        "from": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
        "to": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "direction": "in",
        "amount_atomic": "25000000000000000000000"
      },
      {
        "tx_hash": "0xd333bf8c9ec6bb9fbb9fdfb6bf78fd7152873ea10ac9c862527168e7d9273cb6",
        "log_index": 0,
        "block_number": 13,
        "block_time": "2026-11-23T22:57:53.000Z",
        "token": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "from": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "to": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
        "direction": "out",
        "amount_atomic": "10"
      },
      {
        "tx_hash": "0xa20b95158411e8c92256b28fafc153acaea74c5ad579963cdb2d9d2cd4346f9b",
        "log_index": 0,
        "block_number": 9,
        "block_time": "2026-11-23T22:57:53.000Z",
        "token": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "from": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "to": "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
        "direction": "out",
        "amount_atomic": "2500001"
      },
      {
        "tx_hash": "0x402b3cabb1e53943f3d9dc54ce73225d9e5f6a7fed7184d9a8dba5fb7844ef27",
        "log_index": 0,
        "block_number": 8,
        "block_time": "2026-11-23T22:57:53.000Z",
        "token": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "from": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
        "to": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "direction": "in",
        "amount_atomic": "1250000"
      },
      {
        "tx_hash": "0x341c46bc0c181066da0e95d4a1225ea20d9164d972d36a7bd3e66425dda16d03",
        "log_index": 0,
        "block_number": 5,
        "block_time": "2026-11-23T22:57:52.000Z",
        "token": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "from": "0x0000000000000000000000000000000000000000",
        "to": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "direction": "in",
        "amount_atomic": "100000000"
      }
    ],
    "count": 7,
    "next_cursor": null,
    "indexed": {
      "from_block": 0,
      "from_time": "2026-11-23T22:57:39.000Z",
      "to_block": 31,
      "to_time": "2026-11-23T22:57:53.000Z",
      "from_genesis": true
    }
  },
  run: async (input, ctx) => {
    const on = indexedChain(ctx, 'base');
    const range = await indexedRange(on, ctx.signal);
    requireIndexed(range);
    const cursor = input.cursor === undefined ? undefined : decodeCursor(input.cursor)!;
    const to = cursor?.t ?? input.to_block ?? range.to_block;
    const from = input.from_block ?? range.from_block;
    if (to > range.to_block) throw new ProductInputError(`block ${to} is not indexed yet (the index reaches block ${range.to_block})`, 422, 'to_block');
    if (from < range.from_block) throw new ProductInputError(`the index starts at block ${range.from_block}; search from there or later`, 422, 'from_block');
    if (from > to) throw new ProductInputError(`from_block (${from}) is after to_block (${to})`, 422, 'from_block');

    const address = sqlAddress(input.address);
    const side = input.direction === 'in' ? `"to" = ${address}` : input.direction === 'out' ? `"from" = ${address}` : `("from" = ${address} OR "to" = ${address})`;
    const conditions = [`block_number BETWEEN ${sqlInt(from)} AND ${sqlInt(to)}`, side];
    if (input.token_address) conditions.push(`contract_address = ${sqlAddress(input.token_address)}`);
    if (cursor) conditions.push(`(block_number < ${sqlInt(cursor.b)} OR (block_number = ${sqlInt(cursor.b)} AND log_index < ${sqlInt(cursor.l)}))`);
    const rows = await indexRows(
      on,
      `SELECT tx_hash, log_index, block_number, block_time, contract_address, "from", "to", coalesce(value::VARCHAR, value_raw)
       FROM erc20_transfers WHERE ${conditions.join(' AND ')}
       ORDER BY block_number DESC, log_index DESC LIMIT ${sqlInt(input.limit + 1)}`,
      ctx.signal,
    );
    const page = rows.slice(0, input.limit);
    const me = input.address.toLowerCase();
    const transfers = page.map(([hash, logIndex, block, time, token, sender, recipient, value]) => ({
      tx_hash: String(hash),
      log_index: Number(logIndex),
      block_number: Number(block),
      block_time: String(time),
      token: getAddress(String(token)),
      from: getAddress(String(sender)),
      to: getAddress(String(recipient)),
      direction: sender === me && recipient === me ? ('self' as const) : recipient === me ? ('in' as const) : ('out' as const),
      amount_atomic: String(value),
    }));
    const last = transfers.at(-1);
    return {
      chain: on.chain,
      network: on.network,
      address: getAddress(input.address),
      direction: input.direction,
      token_address: input.token_address ? getAddress(input.token_address) : null,
      from_block: from,
      to_block: to,
      transfers,
      count: transfers.length,
      next_cursor: rows.length > input.limit && last ? encodeCursor({ k: searchKey(input), b: last.block_number, l: last.log_index, t: to }) : null,
      indexed: range,
    };
  },
});
