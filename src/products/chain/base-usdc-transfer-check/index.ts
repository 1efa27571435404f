/**
 * base_usdc_transfer_check: did a USDC transfer happen on Base? Either in one transaction (its
 * receipt's USDC `Transfer` logs, each marked whether it matches the expected sender, recipient and
 * minimum), or since a time within the last MAX_LOG_BLOCKS blocks (eth_getLogs from/to the given
 * addresses). A window reaching further back, or a time in the future, is 422 (`since`), not charged.
 */
import { z } from 'zod';
import { getAddress, type Hex } from 'viem';
import { READ_EXTERNAL, evmAddress, evmChainOf, evmTxHash, product, usdAmount } from '../../kit/index.ts';
import type { EvmChainProvider } from '../../../providers/chains.ts';
import {
  MAX_LOG_BLOCKS,
  TRANSFER_TOPIC,
  USDC_DECIMALS,
  addressOut,
  addressTopic,
  blockByNumber,
  chainIdentity,
  erc20Transfer,
  firstBlockSince,
  identity,
  newestFirst,
  quantity,
  rpc,
  toBlockNumber,
  tokenAmount,
  transferLogs,
  usdcAtomic,
  weiString,
  type RawLog,
  type Transfer,
} from '../evm.ts';

/** The most transfers one answer lists (newest first); `truncated` says when more matched. */
const MAX_TRANSFERS = 100;

const input = z
  .object({
    tx_hash: evmTxHash().optional().describe('Transaction to check, 0x + 64 hex characters (or give `since` to search a recent window)'),
    from: evmAddress().optional().describe('Expected sender address'),
    to: evmAddress().optional().describe('Expected recipient address'),
    min_amount: usdAmount().optional().describe('Expected minimum amount in USDC as a decimal string, e.g. "0.01"'),
    since: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(`Instead of tx_hash: search transfers from \`from\` and/or to \`to\` since this time (ISO 8601), within the last ${MAX_LOG_BLOCKS} blocks`),
  })
  .superRefine((value, ctx) => {
    if (value.tx_hash && value.since) ctx.addIssue({ code: 'custom', path: ['since'], message: 'give tx_hash or since, not both' });
    if (!value.tx_hash && !value.since) ctx.addIssue({ code: 'custom', path: ['tx_hash'], message: 'give tx_hash, or since with from and/or to' });
    if (value.since && !value.from && !value.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'a search since a time needs from and/or to' });
  });

const transferOut = z.object({
  tx_hash: evmTxHash().describe('Transaction of the transfer'),
  log_index: z.int().min(0).describe('Position of its Transfer log in the block'),
  block_number: z.int().min(0).describe('Block of the transfer'),
  from: addressOut().describe('Sender'),
  to: addressOut().describe('Recipient'),
  amount: z.string().describe('Amount in USDC, an exact decimal string'),
  amount_atomic: weiString().describe('Amount in atomic units (6 decimals)'),
  matches: z.boolean().describe('Whether it meets every expectation given (sender, recipient, minimum)'),
});

export const baseUsdcTransferCheck = product({
  id: 'base-usdc-transfer-check',
  title: 'Base USDC transfer check',
  description:
    'Checks whether a USDC transfer happened on Base: in one transaction (tx_hash), or from/to an address since a time (since, within the last 10,000 blocks); optionally to an expected recipient, from an expected sender and of at least an expected amount. Returns the transfers found and whether one matches.',
  method: 'GET',
  price: '0.004',
  annotations: READ_EXTERNAL,
  requires: ['evm:base'],
  input,
  inputExample: {
    tx_hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
    to: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
    min_amount: '0.01',
  },
  output: z.object({
    ...chainIdentity,
    token: addressOut().describe('The USDC contract'),
    mode: z.enum(['transaction', 'window']).describe('transaction: the transfers of tx_hash; window: transfers since `since`'),
    tx_hash: evmTxHash().nullable().describe('The transaction checked; null in window mode'),
    tx_status: z
      .enum(['success', 'reverted', 'pending', 'not_found'])
      .nullable()
      .describe('Status of the transaction checked (a reverted or pending one carries no transfer); null in window mode'),
    from_block: z.int().min(0).nullable().describe('First block searched in window mode; null in transaction mode, or when no block is as recent as `since` yet'),
    to_block: z.int().min(0).nullable().describe('Last block searched in window mode; null in transaction mode'),
    found: z.boolean().describe('Whether at least one transfer meets every expectation given'),
    transfers: z.array(transferOut).describe('Transaction mode: every USDC transfer of the transaction; window mode: the matching transfers, newest first'),
    truncated: z.boolean().describe(`Whether more than ${MAX_TRANSFERS} transfers matched (only the newest are listed)`),
  }),
  outputExample: {
    chain: 'base',
    network: 'eip155:31337',
    token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    mode: 'transaction',
    tx_hash: '0x8e084903045a585dd6e018ae4c1118261863015185749ad0109268b9e3fba7ac',
    tx_status: 'success',
    from_block: null,
    to_block: null,
    found: true,
    transfers: [
      {
        tx_hash: '0x8e084903045a585dd6e018ae4c1118261863015185749ad0109268b9e3fba7ac',
        log_index: 0,
        block_number: 5,
        from: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
        to: '0x1f655EA0e909073b9Bde2d281B6970098421167d',
        amount: '12.345678',
        amount_atomic: '12345678',
        matches: true,
      }
    ],
    truncated: false,
  },
  run: async (input, ctx) => {
    const base = evmChainOf(ctx, 'base');
    const expect = {
      from: input.from ? getAddress(input.from) : undefined,
      to: input.to ? getAddress(input.to) : undefined,
      min: input.min_amount !== undefined ? usdcAtomic(input.min_amount) : undefined,
    };
    const matches = (t: Transfer) => (!expect.from || t.from === expect.from) && (!expect.to || t.to === expect.to) && (expect.min === undefined || t.value >= expect.min);
    const shown = (t: Transfer) => ({
      tx_hash: t.tx_hash,
      log_index: t.log_index,
      block_number: t.block_number,
      from: t.from,
      to: t.to,
      amount: tokenAmount(t.value, USDC_DECIMALS),
      amount_atomic: t.value.toString(),
      matches: matches(t),
    });
    const common = { ...identity(base), token: getAddress(base.usdc) };
    if (input.tx_hash) {
      const hash = input.tx_hash.toLowerCase() as Hex;
      const { status, transfers } = await transactionTransfers(base, hash);
      return {
        ...common,
        mode: 'transaction' as const,
        tx_hash: hash,
        tx_status: status,
        from_block: null,
        to_block: null,
        found: transfers.some(matches),
        transfers: transfers.map(shown),
        truncated: false,
      };
    }
    const head = await blockByNumber(base, 'latest');
    const latest = { number: toBlockNumber(head.number), timestamp: toBlockNumber(head.timestamp) };
    const fromBlock = await firstBlockSince(base, new Date(input.since!), latest, 'since', ctx.now);
    const topics = [TRANSFER_TOPIC, expect.from ? addressTopic(expect.from) : null, expect.to ? addressTopic(expect.to) : null];
    // No block since that time yet: nothing to search.
    const found = fromBlock === undefined ? [] : (await transferLogs(base, { address: base.usdc, topics }, fromBlock, latest.number, ctx.signal)).filter(matches);
    return {
      ...common,
      mode: 'window' as const,
      tx_hash: null,
      tx_status: null,
      from_block: fromBlock ?? null,
      to_block: latest.number,
      found: found.length > 0,
      transfers: found.slice(0, MAX_TRANSFERS).map(shown),
      truncated: found.length > MAX_TRANSFERS,
    };
  },
});

/** The USDC transfers of one transaction, from its receipt, with its status. */
async function transactionTransfers(base: EvmChainProvider, hash: Hex): Promise<{ status: 'success' | 'reverted' | 'pending' | 'not_found'; transfers: Transfer[] }> {
  const receipt = await rpc<{ status: Hex; logs: RawLog[] } | null>(base, 'eth_getTransactionReceipt', [hash]);
  if (!receipt) {
    const tx = await rpc<unknown>(base, 'eth_getTransactionByHash', [hash]);
    return { status: tx ? 'pending' : 'not_found', transfers: [] };
  }
  const usdc = base.usdc.toLowerCase();
  const transfers = receipt.logs
    .filter((log) => log.address.toLowerCase() === usdc)
    .map(erc20Transfer)
    .filter((t): t is Transfer => t !== undefined)
    .sort((a, b) => -newestFirst(a, b));
  return { status: quantity(receipt.status) === 1n ? 'success' : 'reverted', transfers };
}
