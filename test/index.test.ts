/**
 * The block index on a real anvil chain: the service indexes it from genesis; the index's rows
 * equal what the chain's own eth_getLogs says; a reorg (anvil snapshot, revert, other blocks) is
 * repaired; a restart resumes from the cursor instead of starting over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createTestClient, createWalletClient, http, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { DEV_ROLES, devChain, mintUsdc, usdcAbi } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { TOPICS } from '../src/index/decode.ts';
import type { RunningService } from '../src/runtime.ts';
import { capturingLogger, startTestChain, startTestService, tempDataDir } from './helpers/service.ts';

const MNEMONIC = 'test test test test test test test test test test test junk';
const wallets = [5, 6, 7].map((i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));
const INDEX_ENV = { INDEX_CHAINS: 'base', INDEX_POLL_MS: '100' };

let chain: DevChain;
let service: RunningService & { dataDir: string };
const logs = capturingLogger();

const publicClient = () => createPublicClient({ transport: http(chain.rpcUrl) });

/** `count` USDC transfers between the test wallets (each mined at once by anvil). */
async function transfers(count: number, seed: number): Promise<void> {
  const viemChain = devChain(chain.rpcUrl, chain.chainId);
  for (let i = 0; i < count; i++) {
    const from = wallets[(seed + i) % wallets.length]!;
    const to = wallets[(seed + i + 1) % wallets.length]!;
    const wallet = createWalletClient({ account: from, chain: viemChain, transport: http(chain.rpcUrl) });
    const hash = await wallet.writeContract({ address: chain.usdc, abi: usdcAbi, functionName: 'transfer', args: [to.address, BigInt(1_000 + seed * 100 + i) * 1_000n] });
    await publicClient().waitForTransactionReceipt({ hash, pollingInterval: 20 });
  }
}

/** Waits until the index holds the chain's head block with the chain's hash. */
async function caughtUp(running: RunningService, timeoutMs = 15_000): Promise<bigint> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const head = await publicClient().getBlock();
    const outcome = await running.index!.query('base', `SELECT hash FROM blocks WHERE number = ${head.number}`).catch(() => undefined);
    if (outcome?.kind === 'ok' && outcome.result.rows[0]?.[0] === head.hash) return head.number;
    if (Date.now() > deadline) throw new Error(`the index did not reach block ${head.number}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function rows(running: RunningService, sql: string): Promise<unknown[][]> {
  const outcome = await running.index!.query('base', sql);
  if (outcome.kind !== 'ok') throw new Error(`${sql}: ${JSON.stringify(outcome)}`);
  return outcome.result.rows;
}

/** Every ERC-20 Transfer of the chain as eth_getLogs returns it, in the index's row shape. */
async function transfersOnChain(toBlock: bigint): Promise<unknown[][]> {
  const raw = (await publicClient().request({ method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: `0x${toBlock.toString(16)}`, topics: [TOPICS.transfer] }] })) as {
    blockNumber: Hex;
    transactionHash: Hex;
    logIndex: Hex;
    address: Hex;
    topics: Hex[];
    data: Hex;
  }[];
  return raw
    .filter((l) => l.topics.length === 3)
    .map((l) => [Number(l.blockNumber), l.transactionHash.toLowerCase(), Number(l.logIndex), l.address.toLowerCase(), `0x${l.topics[1]!.slice(26)}`, `0x${l.topics[2]!.slice(26)}`, BigInt(l.data).toString()]);
}

const INDEXED_TRANSFERS = `SELECT block_number, tx_hash, log_index, contract_address, "from", "to", value::VARCHAR FROM erc20_transfers ORDER BY block_number, log_index`;

async function expectIndexEqualsChain(running: RunningService): Promise<void> {
  const head = await caughtUp(running);
  expect(await rows(running, INDEXED_TRANSFERS)).toEqual(await transfersOnChain(head));
  // Every block once, with the chain's own hash and parent.
  const blocks = await rows(running, 'SELECT number, hash, parent_hash FROM blocks ORDER BY number');
  expect(blocks.map((b) => b[0])).toEqual(Array.from({ length: Number(head) + 1 }, (_, n) => n));
  const sample = [0n, head / 2n, head];
  for (const n of sample) {
    const block = await publicClient().getBlock({ blockNumber: n });
    expect(blocks[Number(n)]!.slice(1)).toEqual([block.hash, block.parentHash]);
  }
}

beforeAll(async () => {
  chain = await startTestChain();
  for (const w of wallets) await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, w.address, 1_000n * 1_000_000n);
  const test = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
  for (const w of wallets) await test.setBalance({ address: w.address, value: 10n ** 20n });
  await transfers(6, 0);
  service = await startTestService({ chain, dataDir: await tempDataDir(), env: INDEX_ENV, log: logs.log });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

describe('the block index on anvil', () => {
  it('indexes the chain from genesis: erc20_transfers equal eth_getLogs, blocks equal the chain', async () => {
    await expectIndexEqualsChain(service);
    // Transactions carry their receipts: every USDC transfer above succeeded and used gas.
    const [[count, failed]] = (await rows(service, `SELECT count(*), count(*) FILTER (WHERE NOT success OR gas_used = 0) FROM transactions WHERE "to" = '${chain.usdc.toLowerCase()}'`)) as [[number, number]];
    expect(count).toBeGreaterThanOrEqual(9);
    expect(failed).toBe(0);
  });

  it('repairs a reorg: the reverted blocks and their transfers are gone, the new fork is indexed', async () => {
    const test = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
    const snapshot = await test.snapshot();
    await transfers(3, 1);
    const orphanHead = await caughtUp(service);
    const orphan = await rows(service, `SELECT hash FROM blocks WHERE number = ${orphanHead}`);
    await test.revert({ id: snapshot });
    await transfers(5, 2); // a longer fork: heights above the snapshot get other blocks
    await expectIndexEqualsChain(service);
    expect(await rows(service, `SELECT count(*) FROM blocks WHERE hash = '${orphan[0]![0]}'`)).toEqual([[0]]);
    expect(logs.lines.some((line) => line.includes('index: reorg repaired'))).toBe(true);
  });

  it('resumes after a restart from its cursor, without starting over', async () => {
    const head = await caughtUp(service);
    await service.stop();
    await transfers(2, 3);
    const mark = logs.lines.length;
    service = await startTestService({ chain, dataDir: service.dataDir, env: INDEX_ENV, log: logs.log });
    await expectIndexEqualsChain(service);
    const ingested = logs.lines
      .slice(mark)
      .filter((line) => line.includes('index: blocks ingested'))
      .map((line) => JSON.parse(line) as { from: string });
    expect(ingested.length).toBeGreaterThan(0);
    expect(BigInt(ingested[0]!.from)).toBe(head + 1n);
  });

  it('the index reports its status: rows per table, head, lag', async () => {
    const status = await service.index!.status();
    const base = status.chains.find((c) => c.chain === 'base')!;
    expect(base).toMatchObject({ chainId: chain.chainId, following: true, startBlock: '0', lagBlocks: 0 });
    expect(base.rows.erc20_transfers).toBeGreaterThanOrEqual(16);
    expect(status.rss).toBeGreaterThan(0);
  });
});
