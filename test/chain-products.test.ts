import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { createSolanaRpc, type Address as SolanaAddress } from '@solana/kit';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  http,
  parseAbiItem,
  parseEther,
  type Address,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createPayingFetch, createSolanaPayingFetch } from '../src/client/paying-fetch.ts';
import { TestCounterV1, TestERC1967Proxy } from '../src/devchain/artifacts/index.ts';
import { DEV_ROLES, devChain as viemDevChain, mintUsdc, usdcAbi } from '../src/devchain/contracts.ts';
import { startSolanaDevChain, associatedTokenAddress, type SolanaDevChain } from '../src/devchain/solana.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import { fakeContext } from '../src/products/kit/fake-context.ts';
import { createChainProviders } from '../src/providers/chains.ts';
import { baseTxStatus } from '../src/products/chain/base-tx-status/index.ts';
import { baseUsdcTransferCheck } from '../src/products/chain/base-usdc-transfer-check/index.ts';
import { baseTransferSearchRpc } from '../src/products/chain/base-transfer-search-rpc/index.ts';
import { proxyImplementation } from '../src/products/chain/proxy-implementation/index.ts';
import { summarise } from '../src/products/chain/solana.ts';
import type { RunningService } from '../src/runtime.ts';
import { payTool } from './helpers/mcp-payments.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

// The RPC-backed chain products on the dev chains: anvil as `base` (generated USDC activity, a
// deployed EIP-1967 proxy, a reverted transaction) and the in-process Solana VM. Each product is
// paid once with the official clients (@x402/fetch on EVM and Solana, MCP for the MCP-only ones),
// and its figures are compared with what this test reads from the chain itself.

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

let chain: DevChain;
let solana: SolanaDevChain;
let service: RunningService;
let pub: ReturnType<typeof createPublicClient>;
const w1 = privateKeyToAccount(generatePrivateKey());
const w2 = privateKeyToAccount(generatePrivateKey()).address;
const activity = {} as { mint: Hex; spareToW1: Hex; w1ToW2: Hex; reverted: Hex; proxy: Address; implementation: Address; startBlock: number };

async function generateActivity(): Promise<void> {
  const dev = viemDevChain(chain.rpcUrl, chain.chainId);
  const spare = createWalletClient({ account: privateKeyToAccount(DEV_ROLES.spare.privateKey), chain: dev, transport: http(chain.rpcUrl) });
  const mine = createWalletClient({ account: w1, chain: dev, transport: http(chain.rpcUrl) });
  const receipt = async (hash: Hex) => pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  activity.startBlock = Number(await pub.getBlockNumber());
  await createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) }).setBalance({ address: w1.address, value: parseEther('1') });
  activity.mint = await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, DEV_ROLES.spare.address, 50_000_000n);
  activity.spareToW1 = await spare.writeContract({ address: chain.usdc, abi: usdcAbi, functionName: 'transfer', args: [w1.address, 12_345_678n] });
  await receipt(activity.spareToW1);
  activity.w1ToW2 = await mine.writeContract({ address: chain.usdc, abi: usdcAbi, functionName: 'transfer', args: [w2, 2_345_678n] });
  await receipt(activity.w1ToW2);
  // More than w1 holds: mined, and reverted.
  activity.reverted = await mine.sendTransaction({ to: chain.usdc, data: encodeFunctionData({ abi: usdcAbi, functionName: 'transfer', args: [w2, 10n ** 12n] }), gas: 100_000n });
  expect((await receipt(activity.reverted)).status).toBe('reverted');
  const implementation = await receipt(await spare.deployContract({ abi: TestCounterV1.abi, bytecode: TestCounterV1.bytecode }));
  activity.implementation = getAddress(implementation.contractAddress!);
  const proxy = await receipt(await spare.deployContract({ abi: TestERC1967Proxy.abi, bytecode: TestERC1967Proxy.bytecode, args: [activity.implementation, DEV_ROLES.spare.address] }));
  activity.proxy = getAddress(proxy.contractAddress!);
}

beforeAll(async () => {
  [chain, solana] = await Promise.all([startTestChain(), startSolanaDevChain()]);
  pub = createPublicClient({ transport: http(chain.rpcUrl), cacheTime: 0 });
  service = await startTestService({ chain, solanaDevChain: solana });
  await generateActivity();
});
afterAll(async () => {
  await service?.stop();
  await solana?.stop();
  await chain?.stop();
});

const evmPay = () => createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
const url = (path: string, query: Record<string, string> = {}) => `${service.url}/api/v1/paid/${path}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`;
const price = (id: string, surface: 'http' | 'mcp' = 'http') => usdToAtomic(service.percall.catalogue.products.find((p) => p.id === id)![surface]!.price);

/** Pays a route with the official EVM client; checks the buyer paid exactly the price, once. */
async function paid(id: string, init: { query?: Record<string, string>; body?: unknown; method?: 'GET' | 'POST' } = {}): Promise<Record<string, unknown>> {
  const before = await balances(chain);
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  const response = await evmPay()(url(id, init.query), method === 'POST' ? { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body ?? {}) } : {});
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, `${id}: ${JSON.stringify(body)}`).toBe(200);
  expect(before.buyer - (await balances(chain)).buyer, id).toBe(price(id));
  return body;
}

/** The products' own run against the chains, for cases beyond the one paid call of each. */
function directContext() {
  return fakeContext({
    now: new Date(),
    chains: createChainProviders({ evm: [{ chain: 'base', urls: [chain.rpcUrl], chainId: chain.chainId, usdc: chain.usdc }], budgetPerSecond: 1_000, timeoutMs: 5_000 }),
  });
}

async function mcp(): Promise<Client> {
  const client = new Client({ name: 'chain-products-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
  // Listed first, as agents do: the client then validates every structuredContent against the tool's output schema.
  const { tools } = await client.listTools();
  for (const name of ['base_transfer_search_rpc', 'solana_priority_fee']) expect(tools.find((t) => t.name === name)?.outputSchema, name).toBeDefined();
  return client;
}

const paidTool = (client: Client, tool: string, args: Record<string, unknown>, id: string) => payTool(client, chain, tool, args, price(id, 'mcp'));

describe('RPC-backed chain products on the dev chains, paid with the official clients', () => {
  it('base-block-number: the block the chain has under that number, honestly named', async () => {
    const out = await paid('base-block-number');
    const block = await pub.getBlock({ blockNumber: BigInt(out.block_number as number) });
    expect(out).toEqual({
      chain: 'base',
      network: 'eip155:31337',
      block_number: Number(block.number),
      block_hash: block.hash,
      timestamp: new Date(Number(block.timestamp) * 1000).toISOString(),
      timestamp_unix: Number(block.timestamp),
    });
    // Read before the settlement, which mined a block of its own.
    expect(BigInt(out.block_number as number)).toBeLessThan(await pub.getBlockNumber());
  });

  it('base-gas-price: the base fee of the block it names, the tip and price the node suggests', async () => {
    const out = await paid('base-gas-price');
    const block = await pub.getBlock({ blockNumber: BigInt(out.block_number as number) });
    expect(out).toMatchObject({ chain: 'base', network: chain.network, base_fee_wei: block.baseFeePerGas!.toString() });
    expect(out.priority_fee_wei).toBe(BigInt(await pub.request({ method: 'eth_maxPriorityFeePerGas' })).toString());
    expect(BigInt(out.gas_price_wei as string)).toBeGreaterThan(0n);
    expect(Number(out.gas_price_gwei) * 1e9).toBeCloseTo(Number(out.gas_price_wei), 0);
  });

  it('base-tx-status: a USDC transfer as its receipt says; reverted and unknown hashes too', async () => {
    const out = await paid('base-tx-status', { query: { tx_hash: activity.w1ToW2 } });
    const [tx, receipt] = await Promise.all([pub.getTransaction({ hash: activity.w1ToW2 }), pub.getTransactionReceipt({ hash: activity.w1ToW2 })]);
    expect(out).toEqual({
      chain: 'base',
      network: chain.network,
      hash: activity.w1ToW2,
      status: 'success',
      block_number: Number(receipt.blockNumber),
      confirmations: (out.latest_block as number) - Number(receipt.blockNumber) + 1,
      latest_block: out.latest_block,
      from: w1.address,
      to: getAddress(chain.usdc),
      contract_address: null,
      value_wei: tx.value.toString(),
      gas_used: receipt.gasUsed.toString(),
    });
    const ctx = directContext();
    expect(await baseTxStatus.run({ tx_hash: activity.reverted }, ctx)).toMatchObject({ status: 'reverted', from: w1.address });
    expect(await baseTxStatus.run({ tx_hash: `0x${'42'.repeat(32)}` }, ctx)).toMatchObject({ status: 'not_found', confirmations: 0 });
  });

  it('base-usdc-balance: balanceOf at the block it names', async () => {
    const out = await paid('base-usdc-balance', { query: { address: w1.address.toLowerCase() } });
    const atomic = await pub.readContract({ address: chain.usdc, abi: usdcAbi, functionName: 'balanceOf', args: [w1.address], blockNumber: BigInt(out.block_number as number) });
    expect(atomic).toBe(10_000_000n);
    expect(out).toEqual({ chain: 'base', network: chain.network, address: w1.address, token: getAddress(chain.usdc), balance: '10', balance_atomic: atomic.toString(), decimals: 6, block_number: out.block_number });
  });

  it('base-usdc-transfer-check: the transaction’s USDC transfers, matched; a window since a time', async () => {
    const out = await paid('base-usdc-transfer-check', { query: { tx_hash: activity.spareToW1, to: w1.address, min_amount: '12.345678' } });
    const receipt = await pub.getTransactionReceipt({ hash: activity.spareToW1 });
    const log = receipt.logs.find((l) => l.address.toLowerCase() === chain.usdc.toLowerCase())!;
    expect(out).toMatchObject({ mode: 'transaction', tx_status: 'success', found: true, token: getAddress(chain.usdc) });
    expect(out.transfers).toEqual([
      { tx_hash: activity.spareToW1, log_index: log.logIndex, block_number: Number(receipt.blockNumber), from: DEV_ROLES.spare.address, to: w1.address, amount: '12.345678', amount_atomic: '12345678', matches: true },
    ]);
    const first = await pub.getBlock({ blockNumber: BigInt(activity.startBlock) });
    const window = await baseUsdcTransferCheck.run(baseUsdcTransferCheck.input.parse({ since: new Date(Number(first.timestamp) * 1000).toISOString(), from: w1.address }), directContext());
    expect(window).toMatchObject({ mode: 'window', found: true, transfers: [expect.objectContaining({ tx_hash: activity.w1ToW2, to: w2, amount: '2.345678' })] });
  });

  it('proxy-implementation: the EIP-1967 slots as the chain holds them, paid by GET with query parameters and by POST', async () => {
    const slot = (s: Hex) => pub.getStorageAt({ address: activity.proxy, slot: s });
    const implementation = getAddress(`0x${(await slot('0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc'))!.slice(26)}`);
    const admin = getAddress(`0x${(await slot('0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103'))!.slice(26)}`);
    expect([implementation, admin]).toEqual([activity.implementation, DEV_ROLES.spare.address]);
    const viaGet = await paid('proxy-implementation', { query: { address: activity.proxy, chain: 'base' } });
    expect(viaGet).toMatchObject({ chain: 'base', network: chain.network, address: activity.proxy, is_contract: true, is_proxy: true, standard: 'eip1967', implementation, implementation_has_code: true, admin, beacon: null });
    const viaPost = await paid('proxy-implementation', { body: { address: activity.implementation } });
    expect(viaPost).toMatchObject({ address: activity.implementation, is_contract: true, is_proxy: false, implementation: null });
    expect(await proxyImplementation.run({ address: w2, chain: 'base' }, directContext())).toMatchObject({ is_contract: false, is_proxy: false });
  });

  it('base_transfer_search_rpc over MCP: the Transfer logs the chain has for the address, newest first', async () => {
    const client = await mcp();
    const result = await paidTool(client, 'base_transfer_search_rpc', { address: w1.address, direction: 'both' }, 'base-transfer-search-rpc');
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent as { transfers: { tx_hash: string; direction: string; amount: string }[]; from_block: number; to_block: number };
    const [incoming, outgoing] = await Promise.all([
      pub.getLogs({ event: TRANSFER, args: { to: w1.address }, fromBlock: BigInt(out.from_block), toBlock: BigInt(out.to_block) }),
      pub.getLogs({ event: TRANSFER, args: { from: w1.address }, fromBlock: BigInt(out.from_block), toBlock: BigInt(out.to_block) }),
    ]);
    const expected = [...incoming, ...outgoing].sort((a, b) => Number(b.blockNumber - a.blockNumber) || b.logIndex - a.logIndex);
    expect(out.transfers.map((t) => [t.tx_hash, t.direction, t.amount])).toEqual(
      expected.map((l) => [l.transactionHash, l.args.to === w1.address ? 'in' : 'out', (Number(l.args.value) / 1e6).toString()]),
    );
    expect(out.transfers.map((t) => t.tx_hash)).toEqual([activity.w1ToW2, activity.spareToW1]);
    await client.close();
  });

  it('solana-ops-context paid on Solana: slot, blockhash, fees, USDC and the buyer’s token account as the VM holds them', async () => {
    const rpc = createSolanaRpc(solana.rpcUrl);
    const slotBefore = Number(await rpc.getSlot().send());
    const usdcBefore = await solana.usdcBalance(solana.buyer.address);
    const pay = await createSolanaPayingFetch(solana.buyer.secretKey, { rpcUrl: solana.rpcUrl });
    const response = await pay(url('solana-ops-context'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ account: solana.buyer.address }) });
    const out = (await response.json()) as Record<string, any>;
    expect(response.status, JSON.stringify(out)).toBe(200);
    expect(usdcBefore - (await solana.usdcBalance(solana.buyer.address))).toBe(price('solana-ops-context'));
    const slotAfter = Number(await rpc.getSlot().send());
    expect(out.network).toBe(solana.network);
    expect(out.slot).toBeGreaterThanOrEqual(slotBefore);
    expect(out.slot).toBeLessThanOrEqual(slotAfter);
    expect((await rpc.isBlockhashValid(out.blockhash.value, { commitment: 'processed' }).send()).value).toBe(true);
    expect(out.blockhash.last_valid_block_height - out.block_height + out.blockhash.age_blocks).toBe(150);
    expect(out.usdc).toEqual({ mint: solana.mint, decimals: 6, token_program: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' });
    // Read before its own settlement moved the price.
    expect(out.account).toEqual({
      address: solana.buyer.address,
      source: 'input',
      sol_lamports: (await rpc.getBalance(solana.buyer.address as SolanaAddress).send()).value.toString(),
      sol: expect.any(String),
      usdc_token_account: await associatedTokenAddress(solana.buyer.address, solana.mint),
      token_account_exists: true,
      usdc_balance_atomic: usdcBefore.toString(),
      usdc_balance: expect.any(String),
    });
  });

  it('solana_priority_fee over MCP: percentiles of what the VM reports for the accounts (its Solana settlements included)', async () => {
    const rpc = createSolanaRpc(solana.rpcUrl);
    const accounts = [solana.feePayer.address as SolanaAddress];
    const entries = await rpc.getRecentPrioritizationFees(accounts).send();
    expect(entries.length).toBeGreaterThan(0); // the Solana payment above landed with a compute-unit price
    const client = await mcp();
    const result = await paidTool(client, 'solana_priority_fee', { writable_accounts: accounts }, 'solana-priority-fee');
    expect(result.isError).toBeFalsy();
    const expected = summarise(entries, new Date());
    expect(result.structuredContent).toMatchObject({ network: solana.network, writable_accounts: accounts, levels: expected.levels, percentiles: expected.percentiles, samples: expected.samples, cached: false });
    await client.close();
  });
});

describe('bad input: 4xx naming the field, never charged', () => {
  it('malformed addresses and hashes, unknown and unconfigured chains: the 402 already says so, the paid call is refused', async () => {
    const before = await balances(chain);
    const cases: [string, Record<string, string>, number, string, string][] = [
      ['base-usdc-balance', { address: '0x123' }, 400, 'address', 'invalid_input'],
      ['base-tx-status', { tx_hash: '0xnothex' }, 400, 'tx_hash', 'invalid_input'],
      ['base-usdc-transfer-check', { tx_hash: activity.spareToW1, min_amount: '1.1234567' }, 400, 'min_amount', 'invalid_input'],
      ['proxy-implementation', { address: activity.proxy, chain: 'solana' }, 400, 'chain', 'invalid_input'],
      ['proxy-implementation', { address: activity.proxy, chain: 'ethereum' }, 422, 'chain', 'chain_not_configured'],
    ];
    for (const [id, query, status, field, reason] of cases) {
      const quote = await fetch(url(id, query));
      expect(quote.status, id).toBe(402);
      expect(decodePaymentRequiredHeader(quote.headers.get('payment-required')!).error, id).toMatch(new RegExp(`^${reason}: ${field}`));
      const response = await evmPay()(url(id, query));
      const problem = (await response.json()) as { status: number; code: string; errors: { field: string }[] };
      expect(response.status, `${id} ${JSON.stringify(problem)}`).toBe(status);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(problem.errors.map((e) => e.field)).toContain(field);
      if (reason === 'chain_not_configured') expect(problem.code).toBe('chain_not_configured');
    }
    expect(await balances(chain)).toEqual(before);
  });

  it('a future block over MCP is 422 (to_block), paid for but not charged; windows over the cap and a time too far back are 422', async () => {
    const client = await mcp();
    const future = Number(await pub.getBlockNumber()) + 1_000;
    const result = await paidTool(client, 'base_transfer_search_rpc', { address: w1.address, to_block: future }, 'base-transfer-search-rpc');
    expect(result.isError).toBe(true);
    expect(result._meta?.['percall/problem']).toMatchObject({ status: 422, errors: [{ field: 'to_block' }] });
    await client.close();
    const ctx = directContext();
    await expect(baseTransferSearchRpc.run(baseTransferSearchRpc.input.parse({ address: w1.address, from_block: 0, to_block: 10_000 }), ctx)).rejects.toMatchObject({ status: 422 });
    await expect(baseUsdcTransferCheck.run(baseUsdcTransferCheck.input.parse({ since: '2020-01-01T00:00:00Z', to: w1.address }), ctx)).resolves.toMatchObject({ mode: 'window' }); // a young chain: its whole history is within the window
    await expect(baseUsdcTransferCheck.run(baseUsdcTransferCheck.input.parse({ since: '2999-01-01T00:00:00Z', to: w1.address }), ctx)).rejects.toMatchObject({ status: 422, field: 'since' });
  });
});
