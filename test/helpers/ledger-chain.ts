import { expect } from 'vitest';
import { createPublicClient, getAddress, http, parseAbiItem, parseEventLogs, type Hex } from 'viem';
import type { DevChain } from '../../src/devchain/stack.ts';
import { usdcBalance } from '../../src/devchain/contracts.ts';
import type { LedgerEntry, Store } from '../../src/store/types.ts';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const AUTHORIZATION_STATE = parseAbiItem('function authorizationState(address authorizer, bytes32 nonce) view returns (bool)');

/** Where the chain and the ledger stood before a test: what came after is what the test did. */
export interface ChainMark {
  block: bigint;
  buyerBalance: bigint;
  /** Payments already recorded, or still unresolved (an earlier test's), at the mark: not this test's. */
  ledgerKeys: Set<string>;
}

export interface OnChainTransfer {
  txHash: string;
  value: bigint;
}

type LedgerSource = Store | LedgerEntry[] | (() => Promise<LedgerEntry[]>);

async function readLedger(source: LedgerSource): Promise<LedgerEntry[]> {
  if (Array.isArray(source)) return source;
  if (!isStore(source)) return source();
  return source.ledger({ limit: 100_000 });
}

function isStore(source: LedgerSource): source is Store {
  return !Array.isArray(source) && typeof source !== 'function';
}

function client(chain: Pick<DevChain, 'rpcUrl'>) {
  return createPublicClient({ transport: http(chain.rpcUrl) });
}

/** The USDC transfer a (successful) settlement transaction made on chain. */
export async function transferOf(chain: Pick<DevChain, 'rpcUrl'>, txHash: string): Promise<{ from: string; to: string; value: bigint }> {
  const receipt = await client(chain).getTransactionReceipt({ hash: txHash as Hex });
  expect(receipt.status).toBe('success');
  const [transfer] = parseEventLogs({ abi: [TRANSFER], logs: receipt.logs, eventName: 'Transfer' });
  return { from: getAddress(transfer!.args.from), to: getAddress(transfer!.args.to), value: transfer!.args.value };
}

/** Marks the chain's head, the buyer's balance and the ledger rows that already exist. */
export async function markChain(chain: DevChain, ledger: LedgerSource): Promise<ChainMark> {
  const [block, buyerBalance, rows] = await Promise.all([client(chain).getBlockNumber(), usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address), readLedger(ledger)]);
  const unresolved = isStore(ledger) ? await ledger.unresolvedPayments() : [];
  return { block, buyerBalance, ledgerKeys: new Set([...rows.map((r) => r.paymentKey), ...unresolved.map((p) => p.key)]) };
}

/** USDC transfers from the buyer to the pay-to mined after the mark. */
export async function transfersSince(chain: DevChain, mark: ChainMark): Promise<OnChainTransfer[]> {
  const latest = await client(chain).getBlockNumber();
  // anvil refuses a range that starts past its head.
  if (latest <= mark.block) return [];
  const logs = await client(chain).getLogs({ event: TRANSFER, address: chain.usdc, args: { from: chain.buyer.address, to: chain.payTo }, fromBlock: mark.block + 1n, toBlock: latest });
  return logs.map((l) => ({ txHash: l.transactionHash!.toLowerCase(), value: l.args.value! }));
}

/** Whether the buyer's EIP-3009 authorization (its nonce) has been used on chain. */
export async function authorizationUsed(chain: DevChain, nonce: Hex): Promise<boolean> {
  return client(chain).readContract({ address: chain.usdc, abi: [AUTHORIZATION_STATE], functionName: 'authorizationState', args: [chain.buyer.address, nonce] });
}

/**
 * The ledger equals the chain since the mark: every USDC transfer from the buyer to the pay-to has
 * exactly one new ledger row with its transaction hash and amount, every new ledger row has its
 * transfer, and the buyer's balance fell by exactly the sum of the new rows. Returns both sides for
 * further checks (e.g. how many were charged).
 */
export async function ledgerMatchesChain(chain: DevChain, mark: ChainMark, ledger: LedgerSource): Promise<{ transfers: OnChainTransfer[]; rows: LedgerEntry[] }> {
  const transfers = await transfersSince(chain, mark);
  const rows = (await readLedger(ledger)).filter((r) => !mark.ledgerKeys.has(r.paymentKey) && r.network === chain.network);
  const rowsByTx = (tx: string) => rows.filter((r) => r.txHash.toLowerCase() === tx);
  for (const t of transfers) {
    const matching = rowsByTx(t.txHash);
    expect(matching.length, `ledger rows for on-chain transfer ${t.txHash}`).toBe(1);
    expect(BigInt(matching[0]!.amount), `ledger amount of ${t.txHash}`).toBe(t.value);
  }
  for (const r of rows) {
    const matching = transfers.filter((t) => t.txHash === r.txHash.toLowerCase());
    expect(matching.length, `on-chain transfers for ledger row ${r.paymentKey} (tx ${JSON.stringify(r.txHash)})`).toBe(1);
    expect(r.payTo.toLowerCase()).toBe(chain.payTo.toLowerCase());
    expect(r.payer.toLowerCase()).toBe(chain.buyer.address.toLowerCase());
  }
  const drop = mark.buyerBalance - (await usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address));
  expect(drop, 'buyer balance drop equals the sum of the ledger rows').toBe(rows.reduce((sum, r) => sum + BigInt(r.amount), 0n));
  return { transfers, rows };
}
