/**
 * The index-backed chain products on anvil: USDC transfers between several wallets, a plain ERC-20,
 * an ERC-721 collection (mints and a transfer), a Uniswap v2-style pair with swaps emitting the real
 * Swap event, and a reverted transaction. The service indexes the chain; every product is paid once
 * with the official @x402/fetch client and once over MCP, and its figures are compared with what
 * this test computes from the chain itself (eth_getLogs, blocks and receipts), up to the block the
 * answer says it read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { createPublicClient, createTestClient, createWalletClient, getAddress, http, type Address, type Hex, type Log, type PublicClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import { TestNFT, TestToken, TestUniswapV2Pair } from '../src/devchain/artifacts/index.ts';
import { DEV_ROLES, devChain, mintUsdc, usdcAbi } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { TOPICS } from '../src/index/decode.ts';
import { fakeContext } from '../src/products/kit/fake-context.ts';
import { baseTransferSearch } from '../src/products/chain/base-transfer-search/index.ts';
import { baseWalletProfile } from '../src/products/chain/base-wallet-profile/index.ts';
import { ratio } from '../src/products/chain/index-read.ts';
import { riskScore } from '../src/products/chain/wallet-spy/risk.ts';
import { createChainProviders } from '../src/providers/chains.ts';
import type { RunningService } from '../src/runtime.ts';
import { indexCaughtUp, swapOnPair } from './helpers/dev-index.ts';
import { paidCalls } from './helpers/paid-calls.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

const MNEMONIC = 'test test test test test test test test test test test junk';
const [w5, w6, w7, w8] = [5, 6, 7, 8].map((i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));
const ZERO = '0x0000000000000000000000000000000000000000';

let chain: DevChain;
let service: RunningService & { dataDir: string };
let pub: PublicClient;
const made = {} as { token: Address; nft: Address; pair: Address; reverted: Hex };

async function generateActivity(): Promise<void> {
  const viemChain = devChain(chain.rpcUrl, chain.chainId);
  const wallet = (account: ReturnType<typeof mnemonicToAccount>) => createWalletClient({ account, chain: viemChain, transport: http(chain.rpcUrl) });
  const done = async (hash: Hex) => {
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    return receipt;
  };
  const deployer = wallet(mnemonicToAccount(MNEMONIC, { addressIndex: 0 })); // DEV_ROLES.deployer
  const test = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
  for (const w of [w5!, w6!, w7!, w8!]) {
    await test.setBalance({ address: w.address, value: 10n ** 20n });
    await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, w.address, 100_000_000n);
  }
  // USDC between the wallets.
  const usdcMoves: [typeof w5, typeof w5, bigint][] = [
    [w5!, w6!, 1_250_000n],
    [w6!, w7!, 2_500_001n],
    [w7!, w8!, 333_333n],
    [w8!, w5!, 4_000_000n],
    [w5!, w7!, 750_000n],
    [w6!, w5!, 10n],
  ];
  for (const [from, to, value] of usdcMoves) await done(await wallet(from!).writeContract({ address: chain.usdc, abi: usdcAbi, functionName: 'transfer', args: [to!.address, value] }));
  // A plain ERC-20, minted to w5 and spread.
  made.token = getAddress((await done(await deployer.deployContract({ abi: TestToken.abi, bytecode: TestToken.bytecode, args: ['Test Token', 'TKN'] }))).contractAddress!);
  await done(await deployer.writeContract({ address: made.token, abi: TestToken.abi, functionName: 'mint', args: [w5!.address, 1_000_000n * 10n ** 18n] }));
  await done(await wallet(w5!).writeContract({ address: made.token, abi: TestToken.abi, functionName: 'transfer', args: [w6!.address, 25_000n * 10n ** 18n] }));
  await done(await wallet(w5!).writeContract({ address: made.token, abi: TestToken.abi, functionName: 'transfer', args: [w7!.address, 7_000n * 10n ** 18n] }));
  // An ERC-721: three mints, one transfer.
  made.nft = getAddress((await done(await deployer.deployContract({ abi: TestNFT.abi, bytecode: TestNFT.bytecode }))).contractAddress!);
  for (const [minter, to] of [[w5!, w5!], [w6!, w6!], [w5!, w7!]] as const) await done(await wallet(minter).writeContract({ address: made.nft, abi: TestNFT.abi, functionName: 'mint', args: [to.address] }));
  await done(await wallet(w5!).writeContract({ address: made.nft, abi: TestNFT.abi, functionName: 'transferFrom', args: [w5!.address, w6!.address, 1n] }));
  // A Uniswap v2-style USDC/TKN pair: liquidity from w5, then two swaps.
  made.pair = getAddress((await done(await deployer.deployContract({ abi: TestUniswapV2Pair.abi, bytecode: TestUniswapV2Pair.bytecode, args: [chain.usdc, made.token] }))).contractAddress!);
  await done(await wallet(w5!).writeContract({ address: chain.usdc, abi: usdcAbi, functionName: 'transfer', args: [made.pair, 50_000_000n] }));
  await done(await wallet(w5!).writeContract({ address: made.token, abi: TestToken.abi, functionName: 'transfer', args: [made.pair, 50_000n * 10n ** 18n] }));
  await done(await wallet(w5!).writeContract({ address: made.pair, abi: TestUniswapV2Pair.abi, functionName: 'sync' }));
  await swapOnPair(pub, wallet(w6!), made.pair, chain.usdc, 5_000_000n, w6!.address);
  await swapOnPair(pub, wallet(w7!), made.pair, made.token, 1_000n * 10n ** 18n, w8!.address);
  // More USDC than w8 holds: mined, reverted.
  made.reverted = await wallet(w8!).writeContract({ address: chain.usdc, abi: usdcAbi, functionName: 'transfer', args: [w5!.address, 10n ** 15n], gas: 100_000n });
  expect((await done(made.reverted)).status).toBe('reverted');
}

beforeAll(async () => {
  chain = await startTestChain();
  pub = createPublicClient({ transport: http(chain.rpcUrl), cacheTime: 0 }) as PublicClient;
  service = await startTestService({ chain, env: { INDEX_CHAINS: 'base', INDEX_POLL_MS: '50' } });
  await generateActivity();
  await indexCaughtUp(service, pub);
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

// ---- The chain itself, as the test reads it ----

interface Erc20 { block: number; logIndex: number; tx: string; token: string; from: string; to: string; value: bigint }
interface Tx { block: number; index: number; hash: string; from: string; to: string | null; created: string | null; success: boolean; time: number }

const blockCache = new Map<number, { time: number; txs: Tx[] }>();
const lower = (topic: Hex) => `0x${topic.slice(26)}`.toLowerCase();

/** Logs (eth_getLogs), transactions and block times of blocks 0..n. */
async function chainUpTo(n: number) {
  for (let b = 0; b <= n; b++) {
    if (blockCache.has(b)) continue;
    const block = await pub.getBlock({ blockNumber: BigInt(b), includeTransactions: true });
    const txs: Tx[] = [];
    for (const tx of block.transactions) {
      const receipt = await pub.getTransactionReceipt({ hash: tx.hash });
      txs.push({ block: b, index: tx.transactionIndex, hash: tx.hash, from: tx.from.toLowerCase(), to: tx.to?.toLowerCase() ?? null, created: receipt.contractAddress?.toLowerCase() ?? null, success: receipt.status === 'success', time: Number(block.timestamp) });
    }
    blockCache.set(b, { time: Number(block.timestamp), txs });
  }
  const logs = (await pub.getLogs({ fromBlock: 0n, toBlock: BigInt(n) })) as Log[];
  const erc20: Erc20[] = logs
    .filter((l) => l.topics[0] === TOPICS.transfer && l.topics.length === 3)
    .map((l) => ({ block: Number(l.blockNumber), logIndex: l.logIndex!, tx: l.transactionHash!, token: l.address.toLowerCase(), from: lower(l.topics[1]!), to: lower(l.topics[2]!), value: BigInt(l.data) }));
  const nfts = logs
    .filter((l) => l.topics[0] === TOPICS.transfer && l.topics.length === 4)
    .map((l) => ({ block: Number(l.blockNumber), from: lower(l.topics[1]!), to: lower(l.topics[2]!), id: BigInt(l.topics[3]!), contract: l.address.toLowerCase() }));
  const swaps = logs.filter((l) => l.topics[0] === TOPICS.swapV2).map((l) => ({ block: Number(l.blockNumber), logIndex: l.logIndex!, tx: l.transactionHash!, pair: l.address.toLowerCase(), sender: lower(l.topics[1]!), to: lower(l.topics[2]!), data: l.data }));
  const txs = [...blockCache.entries()].filter(([b]) => b <= n).flatMap(([, v]) => v.txs);
  const time = (b: number) => blockCache.get(b)!.time;
  return { erc20, nfts, swaps, txs, time };
}

const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** A wallet's figures as the products define them (wallet-activity.ts), computed from the chain. */
function walletFigures(c: Awaited<ReturnType<typeof chainUpTo>>, wallet: string, sinceSeconds = 0) {
  const w = wallet.toLowerCase();
  const erc20 = c.erc20.filter((t) => (t.from === w || t.to === w) && c.time(t.block) >= sinceSeconds);
  const txs = c.txs.filter((t) => (t.from === w || t.to === w || t.created === w) && t.time >= sinceSeconds);
  const nfts = c.nfts.filter((t) => (t.from === w || t.to === w) && c.time(t.block) >= sinceSeconds);
  const seen = [...erc20.map((t) => t.block), ...txs.map((t) => t.block), ...nfts.map((t) => t.block)];
  const flows = new Map<string, { transfers_in: number; transfers_out: number; in: bigint; out: bigint }>();
  for (const t of erc20) {
    const f = flows.get(t.token) ?? { transfers_in: 0, transfers_out: 0, in: 0n, out: 0n };
    if (t.to === w) (f.transfers_in++, (f.in += t.value));
    if (t.from === w) (f.transfers_out++, (f.out += t.value));
    flows.set(t.token, f);
  }
  const others = new Map<string, { transfers_in: number; transfers_out: number; transactions: number }>();
  const other = (address: string) => others.get(address) ?? others.set(address, { transfers_in: 0, transfers_out: 0, transactions: 0 }).get(address)!;
  for (const t of erc20) {
    if (t.to === w && t.from !== w) other(t.from).transfers_in++;
    if (t.from === w && t.to !== w) other(t.to).transfers_out++;
  }
  for (const t of txs) if (t.to !== null && t.from !== t.to && (t.from === w || t.to === w)) other(t.from === w ? t.to : t.from).transactions++;
  others.delete(ZERO);
  const ranked = (map: Map<string, number>) => [...map.entries()].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  return {
    transfersIn: erc20.filter((t) => t.to === w).length,
    transfersOut: erc20.filter((t) => t.from === w).length,
    sent: txs.filter((t) => t.from === w).length,
    received: txs.filter((t) => t.to === w).length,
    failed: txs.filter((t) => t.from === w && !t.success).length,
    nftIn: nfts.filter((t) => t.to === w).length,
    nftOut: nfts.filter((t) => t.from === w).length,
    minted: nfts.filter((t) => t.to === w && t.from === ZERO).length,
    firstBlock: seen.length ? Math.min(...seen) : null,
    lastBlock: seen.length ? Math.max(...seen) : null,
    activeDays: new Set(seen.map((b) => day(c.time(b)))).size,
    flows: ranked(new Map([...flows].map(([token, f]) => [token, f.transfers_in + f.transfers_out]))).map(([token]) => {
      const f = flows.get(token)!;
      return { token: getAddress(token), transfers_in: f.transfers_in, transfers_out: f.transfers_out, amount_in: f.in.toString(), amount_out: f.out.toString(), net: (f.in - f.out).toString() };
    }),
    counterparties: ranked(new Map([...others].map(([a, o]) => [a, o.transfers_in + o.transfers_out + o.transactions]))).map(([a, n]) => ({ address: getAddress(a), ...others.get(a)!, interactions: n })),
    erc20,
    txs,
  };
}

/** Balances of a token from its transfers (the zero address left out). */
function holdings(c: Awaited<ReturnType<typeof chainUpTo>>, token: string) {
  const balances = new Map<string, bigint>();
  for (const t of c.erc20.filter((x) => x.token === token.toLowerCase())) {
    balances.set(t.to, (balances.get(t.to) ?? 0n) + t.value);
    balances.set(t.from, (balances.get(t.from) ?? 0n) - t.value);
  }
  balances.delete(ZERO);
  return [...balances.entries()].filter(([, v]) => v > 0n).sort(([a, x], [b, y]) => (y > x ? 1 : y < x ? -1 : a < b ? -1 : 1));
}

// ---- Paying ----

const { url, paid, paidTool } = paidCalls(() => ({ service, chain }), {
  client: 'chain-index-products-test',
  tools: ['base_transfer_search', 'base_wallet_profile', 'wallet_analyze', 'wallet_spy', 'token_metrics', 'token_flow_activity'],
});

const direct = () => fakeContext({
  now: new Date(),
  index: service.index!,
  chains: createChainProviders({ evm: [{ chain: 'base', urls: [chain.rpcUrl], chainId: chain.chainId, usdc: chain.usdc }], budgetPerSecond: 1_000, timeoutMs: 5_000 }),
});

describe('index-backed chain products on anvil, paid with @x402/fetch and over MCP', () => {
  it('base-transfer-search: every ERC-20 transfer of the wallet, newest first; pages with a cursor continue exactly', async () => {
    const out = await paid('base-transfer-search', { address: w6!.address, limit: 100 });
    const c = await chainUpTo(out.to_block);
    const w = w6!.address.toLowerCase();
    const expected = c.erc20.filter((t) => t.from === w || t.to === w).sort((a, b) => b.block - a.block || b.logIndex - a.logIndex);
    expect(out.transfers.map((t: any) => [t.tx_hash, t.log_index, t.token, t.direction, t.amount_atomic])).toEqual(
      expected.map((t) => [t.tx, t.logIndex, getAddress(t.token), t.from === w && t.to === w ? 'self' : t.to === w ? 'in' : 'out', t.value.toString()]),
    );
    expect(out.next_cursor).toBeNull();
    const first = await paidTool('base_transfer_search', { address: w6!.address, limit: 3 }, 'base-transfer-search');
    const pages = [...first.transfers];
    for (let cursor = first.next_cursor; cursor; ) {
      const page = await baseTransferSearch.run(baseTransferSearch.input.parse({ address: w6!.address, limit: 3, cursor }), direct());
      pages.push(...page.transfers);
      cursor = page.next_cursor;
    }
    expect(pages.map((t) => t.tx_hash + t.log_index)).toEqual(c.erc20.filter((t) => (t.from === w || t.to === w) && t.block <= first.to_block).sort((a, b) => b.block - a.block || b.logIndex - a.logIndex).map((t) => t.tx + t.logIndex));
  });

  it('base-wallet-profile: balances, nonce and code as the chain holds them; history as its blocks show it', async () => {
    for (const out of [await paid('base-wallet-profile', { address: w6!.address }), await paidTool('base_wallet_profile', { address: w6!.address }, 'base-wallet-profile')]) {
      const at = BigInt(out.balances_block);
      const c = await chainUpTo(out.indexed.to_block);
      const f = walletFigures(c, w6!.address);
      expect(out).toMatchObject({
        chain: 'base',
        network: chain.network,
        address: w6!.address,
        is_contract: false,
        eth_balance_wei: (await pub.getBalance({ address: w6!.address, blockNumber: at })).toString(),
        usdc_balance_atomic: (await pub.readContract({ address: chain.usdc, abi: usdcAbi, functionName: 'balanceOf', args: [w6!.address], blockNumber: at })).toString(),
        nonce: await pub.getTransactionCount({ address: w6!.address, blockNumber: at }),
        activity: {
          transactions_sent: f.sent,
          transactions_received: f.received,
          transactions_failed: f.failed,
          token_transfers_in: f.transfersIn,
          token_transfers_out: f.transfersOut,
          nft_transfers_in: f.nftIn,
          nft_transfers_out: f.nftOut,
          first_seen: { block_number: f.firstBlock, time: iso(c.time(f.firstBlock!)) },
          last_seen: { block_number: f.lastBlock, time: iso(c.time(f.lastBlock!)) },
          active_days: f.activeDays,
        },
      });
    }
    const pair = await baseWalletProfile.run({ address: made.pair }, direct());
    const f = walletFigures(await chainUpTo(pair.indexed.to_block!), made.pair);
    expect(pair).toMatchObject({ is_contract: true, activity: { token_transfers_in: f.transfersIn, token_transfers_out: f.transfersOut, transactions_received: f.received } });
  });

  it('wallet-analyze: 90 days of transfers, counterparties, token flows and active days', async () => {
    for (const out of [await paid('wallet-analyze', { wallet_address: w5!.address }), await paidTool('wallet_analyze', { wallet_address: w5!.address, chain: 'base' }, 'wallet-analyze')]) {
      const c = await chainUpTo(out.window.to_block);
      const f = walletFigures(c, w5!.address, Date.parse(out.window.from) / 1000);
      expect(out).toMatchObject({
        wallet_address: w5!.address,
        window: { days: 90, complete: true },
        transfers: { in: f.transfersIn, out: f.transfersOut, total: f.transfersIn + f.transfersOut },
        transactions: { sent: f.sent, received: f.received, failed: f.failed },
        counterparties_total: f.counterparties.length,
        tokens_total: f.flows.length,
        active_days: f.activeDays,
      });
      expect(out.token_flows).toEqual(f.flows);
      expect(out.counterparties).toEqual(f.counterparties.slice(0, 10));
    }
  });

  it('wallet-spy (GET): transactions, token flows, swaps, NFT activity, counterparties and the risk score from the chain’s figures', async () => {
    for (const out of [await paid('wallet-spy', { address: w6!.address }, 'GET'), await paidTool('wallet_spy', { address: w6!.address }, 'wallet-spy')]) {
      const c = await chainUpTo(out.window.to_block);
      const w = w6!.address.toLowerCase();
      const f = walletFigures(c, w, Date.parse(out.window.from) / 1000);
      const ownTx = new Set(f.txs.filter((t) => t.from === w).map((t) => t.hash));
      const swaps = c.swaps.filter((s) => s.sender === w || s.to === w || ownTx.has(s.tx)).sort((a, b) => b.block - a.block || b.logIndex - a.logIndex);
      expect(swaps.length).toBeGreaterThan(0);
      expect(out.swaps.count).toBe(swaps.length);
      expect(out.swaps.recent.map((s: any) => [s.tx_hash, s.pool, s.amount0_in, s.amount1_in, s.amount0_out, s.amount1_out])).toEqual(
        swaps.map((s) => [s.tx, getAddress(s.pair), ...[0, 1, 2, 3].map((i) => BigInt(`0x${s.data.slice(2 + i * 64, 66 + i * 64)}`).toString())]),
      );
      expect(out.nft_activity).toMatchObject({ received: f.nftIn, sent: f.nftOut, minted: f.minted });
      expect(out.transactions).toMatchObject({ sent: f.sent, received: f.received, failed: f.failed });
      expect(out.transactions.recent.map((t: any) => t.hash)).toEqual(f.txs.filter((t) => t.from === w || t.to === w).sort((a, b) => b.block - a.block || b.index - a.index).slice(0, 10).map((t) => t.hash));
      expect(out.token_flows).toEqual(f.flows.slice(0, 10));
      expect(out.counterparties).toEqual(f.counterparties.slice(0, 10));
      const sentPerDay = new Map<string, number>();
      for (const t of f.txs.filter((x) => x.from === w)) sentPerDay.set(day(t.time), (sentPerDay.get(day(t.time)) ?? 0) + 1);
      const risk = riskScore({
        ageDays: (Date.parse(out.window.to) / 1000 - c.time(walletFigures(c, w).firstBlock!)) / 86_400,
        ageKnown: true,
        sent: f.sent,
        failed: f.failed,
        recipients: new Set(f.erc20.filter((t) => t.from === w && t.to !== w).map((t) => t.to)).size,
        unsolicitedTokens: new Set(f.erc20.filter((t) => t.to === w).map((t) => t.token).filter((token) => !f.erc20.some((t) => t.from === w && t.token === token))).size,
        busiestDay: Math.max(0, ...sentPerDay.values()),
        flows: f.flows.slice(0, 10).map((x) => ({ token: x.token, amountIn: BigInt(x.amount_in), amountOut: BigInt(x.amount_out), transfersIn: x.transfers_in, transfersOut: x.transfers_out })),
      });
      expect(out).toMatchObject({ risk_score: risk.score, risk_level: risk.level });
      expect(out.risk_factors.map((r: any) => r.rule)).toEqual(risk.factors.map((r) => r.rule));
      expect(out.risk_factors.map((r: any) => r.rule)).toContain('new_wallet');
    }
  });

  it('token-metrics: holders, top holders, buckets, concentration and whales from the token’s Transfer logs', async () => {
    const cases: [Record<string, any>, Address][] = [
      [await paid('token-metrics', { token_address: made.token }), made.token],
      [await paidTool('token_metrics', { token_address: chain.usdc }, 'token-metrics'), chain.usdc],
    ];
    for (const [out, token] of cases) {
      const c = await chainUpTo(out.as_of_block);
      const held = holdings(c, token);
      const total = held.reduce((s, [, v]) => s + v, 0n);
      const transfers = c.erc20.filter((t) => t.token === token.toLowerCase());
      expect(out).toMatchObject({
        token_address: getAddress(token),
        complete: true,
        holders: held.length,
        supply: {
          held_atomic: total.toString(),
          minted_atomic: transfers.filter((t) => t.from === ZERO).reduce((s, t) => s + t.value, 0n).toString(),
          burned_atomic: transfers.filter((t) => t.to === ZERO).reduce((s, t) => s + t.value, 0n).toString(),
        },
        transfers: { count: transfers.length, first_block: Math.min(...transfers.map((t) => t.block)), last_block: Math.max(...transfers.map((t) => t.block)) },
      });
      expect(out.top_holders).toEqual(held.slice(0, 10).map(([a, v]) => ({ address: getAddress(a), balance_atomic: v.toString(), share: ratio(v, total) })));
      const bucket = (v: bigint) => (v * 100n >= total ? 0 : v * 1000n >= total ? 1 : v * 10_000n >= total ? 2 : 3);
      expect(out.distribution.map((d: any) => d.holders)).toEqual([0, 1, 2, 3].map((i) => held.filter(([, v]) => bucket(v) === i).length));
      expect(out.distribution.map((d: any) => d.balance_atomic)).toEqual([0, 1, 2, 3].map((i) => held.filter(([, v]) => bucket(v) === i).reduce((s, [, v]) => s + v, 0n).toString()));
      expect(out.concentration.top10_share).toBe(ratio(held.slice(0, 10).reduce((s, [, v]) => s + v, 0n), total));
      const x = held.map(([, v]) => Number(v)).sort((a, b) => a - b);
      const sum = x.reduce((a, b) => a + b, 0);
      expect(Number(out.concentration.gini)).toBeCloseTo((2 * x.reduce((acc, v, i) => acc + (i + 1) * v, 0)) / (x.length * sum) - (x.length + 1) / x.length, 5);
      expect(out.whales.count).toBe(held.filter(([, v]) => bucket(v) === 0).length);
    }
  });

  it('token-flow-activity: volume, largest transfers, top senders and receivers, mints and DEX pool flows', async () => {
    const cases: [Record<string, any>, Address][] = [
      [await paid('token-flow-activity', { token_address: chain.usdc, window_hours: 24 }), chain.usdc],
      [await paidTool('token_flow_activity', { token_address: made.token }, 'token-flow-activity'), made.token],
    ];
    for (const [out, token] of cases) {
      const c = await chainUpTo(out.window.to_block);
      const since = Date.parse(out.window.from) / 1000;
      const t = c.erc20.filter((x) => x.token === token.toLowerCase() && c.time(x.block) >= since);
      const pools = new Set(c.swaps.map((s) => s.pair));
      const sum = (list: Erc20[]) => list.reduce((s, x) => s + x.value, 0n).toString();
      expect(out).toMatchObject({
        volume: { transfers: t.length, amount_atomic: sum(t), senders: new Set(t.map((x) => x.from).filter((a) => a !== ZERO)).size, receivers: new Set(t.map((x) => x.to).filter((a) => a !== ZERO)).size },
        mint_burn: { minted_atomic: sum(t.filter((x) => x.from === ZERO)), burned_atomic: sum(t.filter((x) => x.to === ZERO)) },
        exchange_flows: { pools: 1, inflow_atomic: sum(t.filter((x) => pools.has(x.to))), outflow_atomic: sum(t.filter((x) => pools.has(x.from))) },
      });
      const largest = [...t].sort((a, b) => (b.value > a.value ? 1 : b.value < a.value ? -1 : b.block - a.block || b.logIndex - a.logIndex)).slice(0, 5);
      expect(out.largest_transfers.map((x: any) => [x.tx_hash, x.log_index, x.amount_atomic])).toEqual(largest.map((x) => [x.tx, x.logIndex, x.value.toString()]));
      const sent = new Map<string, bigint>();
      for (const x of t) if (x.from !== ZERO) sent.set(x.from, (sent.get(x.from) ?? 0n) + x.value);
      expect(out.top_senders.map((p: any) => [p.address, p.sent_atomic])).toEqual(
        [...sent.entries()].sort(([a, x], [b, y]) => (y > x ? 1 : y < x ? -1 : a < b ? -1 : 1)).slice(0, 5).map(([a, v]) => [getAddress(a), v.toString()]),
      );
    }
  });
});

describe('the 402 quotes', () => {
  it('payer-profile: the buyer’s x402 payments (EIP-3009 AuthorizationUsed with its USDC Transfer) as the chain holds them; the free doors', async () => {
    for (let i = 0; i < 3; i++) await paid('base-transfer-search', { address: chain.payTo, limit: 1 }); // payments of its own
    await indexCaughtUp(service, pub);
    const out = await paid('payer-profile', { address: chain.buyer.address });
    const to = BigInt(out.indexed.to_block);
    const buyer = chain.buyer.address.toLowerCase();
    const used = await pub.getLogs({ address: chain.usdc, fromBlock: 0n, toBlock: to, event: { type: 'event', name: 'AuthorizationUsed', inputs: [{ type: 'address', name: 'authorizer', indexed: true }, { type: 'bytes32', name: 'nonce', indexed: true }] }, args: { authorizer: chain.buyer.address } });
    const payments: { payee: string; value: bigint; block: bigint }[] = [];
    for (const log of used) {
      const receipt = await pub.getTransactionReceipt({ hash: log.transactionHash! });
      for (const l of receipt.logs) {
        if (l.address.toLowerCase() === chain.usdc.toLowerCase() && l.topics[0] === TOPICS.transfer && lower(l.topics[1]!) === buyer) payments.push({ payee: lower(l.topics[2]!), value: BigInt(l.data), block: log.blockNumber! });
      }
    }
    expect(payments.length).toBeGreaterThanOrEqual(3);
    const usdc = (atomic: bigint) => (Number(atomic) / 1e6).toString();
    expect(out).toMatchObject({ address: chain.buyer.address, payments: payments.length, volume: usdc(payments.reduce((a, p) => a + p.value, 0n)), sellers: new Set(payments.map((p) => p.payee)).size, class: 'new' });
    expect(out.top_sellers[0]).toMatchObject({ address: getAddress(chain.payTo), payments: payments.filter((p) => p.payee === chain.payTo.toLowerCase()).length });
    const overMcp = await paidTool('payer_profile', { address: chain.buyer.address }, 'payer-profile');
    expect(overMcp.payments).toBeGreaterThanOrEqual(out.payments);
    const classes = (await (await fetch(`${service.url}/api/v1/payer-profile/classes`)).json()) as { classes: { class: string; rule: string }[] };
    expect(classes.classes.map((c) => c.class)).toEqual(['none', 'dormant', 'new', 'automated', 'regular', 'occasional']);
    const example = await fetch(`${service.url}/api/v1/payer-profile/example`);
    expect(example.status).toBe(200);
    expect(((await example.json()) as { example: { class: string } }).example.class).toBe('new');
  });

  it('fit in a header every HTTP client takes (undici: 16 KB for all headers)', async () => {
    for (const [id, method] of [['base-transfer-search', 'POST'], ['base-wallet-profile', 'POST'], ['wallet-analyze', 'POST'], ['wallet-spy', 'GET'], ['token-metrics', 'POST'], ['token-flow-activity', 'POST']] as const) {
      const response = await fetch(url(id), { method });
      expect(response.status, id).toBe(402);
      expect(response.headers.get('payment-required')!.length, id).toBeLessThan(15_000);
    }
  });
});

describe('bad input: named before payment, never charged', () => {
  it('a malformed address, a chain not indexed here, a block not indexed yet', async () => {
    const before = await balances(chain);
    const spy = await fetch(url('wallet-spy', { address: '0x1234' }));
    expect(spy.status).toBe(402);
    expect(decodePaymentRequiredHeader(spy.headers.get('payment-required')!).error).toMatch(/^invalid_input: address/);
    const other = await fetch(url('wallet-analyze'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ wallet_address: w5!.address, chain: 'ethereum' }) });
    expect(decodePaymentRequiredHeader(other.headers.get('payment-required')!).error).toMatch(/^chain_not_configured: chain/);
    const pay = createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    const future = await pay(url('base-transfer-search'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: w5!.address, to_block: 10_000_000 }) });
    expect(future.status).toBe(422);
    expect(((await future.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe('to_block');
    const notToken = await pay(url('token-metrics'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token_address: w5!.address }) });
    expect(notToken.status).toBe(422);
    expect(await balances(chain)).toEqual(before);
  });
});
