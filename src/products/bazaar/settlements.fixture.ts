/** Settled x402 payments as the index holds them, for unit tests: an ERC-20 Transfer and EIP-3009 AuthorizationUsed in one transaction. */
import { row } from '../chain/index-fixture.ts';
import { USDC_BASE } from './fixture.ts';
import { AUTHORIZATION_USED } from './settlements.ts';

export const PAYER = '0x9999999999999999999999999999999999999999';
const topic = (address: string) => `0x${'0'.repeat(24)}${address.slice(2)}`;

export function settledPayments(list: { to: string; value: bigint; block: number; at: Date; eip3009?: boolean }[]) {
  const hash = (i: number) => `0x${(i + 1).toString(16).padStart(64, '0')}`;
  return {
    erc20_transfers: list.map((p, i) => row('erc20_transfers', { block_number: p.block, block_time: p.at, tx_hash: hash(i), log_index: 1, contract_address: USDC_BASE, from: PAYER, to: p.to, value: p.value })),
    logs: list.flatMap((p, i) =>
      p.eip3009 === false ? [] : [row('logs', { block_number: p.block, block_time: p.at, tx_hash: hash(i), tx_index: 0, log_index: 0, address: USDC_BASE, topic0: AUTHORIZATION_USED, topic1: topic(PAYER), topic2: `0x${'ab'.repeat(32)}` })],
    ),
  };
}
