import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { UptoEvmScheme as UptoClientScheme } from '@x402/evm/upto/client';
import { createPublicClient, createWalletClient, getAddress, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createPayingFetch, createSolanaPayingFetch } from '../src/client/paying-fetch.ts';
import { DEV_ROLES, devChain as viemDevChain, usdcAbi } from '../src/devchain/contracts.ts';
import { startSolanaDevChain, type SolanaDevChain } from '../src/devchain/solana.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import { createLocalFacilitator } from '../src/payments/facilitator.ts';
import type { RunningService } from '../src/runtime.ts';
import { settlementOf, signPayment } from './helpers/payments.ts';
import { startFacilitatorServer } from './helpers/facilitator-server.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

// The payments products on the dev chains, paid with the official clients: settlement_verify on real
// settlements the test makes (x402 exact through percall itself, upto through the official
// facilitator, a batch-settlement claim, Solana exact) and on what is not one (a plain transfer, a
// reverted transaction); x402_receipt_lookup returns the same records. Each product is paid once over
// HTTP with @x402/fetch and once over MCP.

let chain: DevChain;
let solana: SolanaDevChain;
let service: RunningService;

beforeAll(async () => {
  [chain, solana] = await Promise.all([startTestChain(), startSolanaDevChain()]);
  service = await startTestService({ chain, solanaDevChain: solana, env: { PERCALL_FETCH_ALLOW_LOOPBACK: '1' } });
});
afterAll(async () => {
  await service?.stop();
  await solana?.stop();
  await chain?.stop();
});

const pub = () => createPublicClient({ chain: viemDevChain(chain.rpcUrl, chain.chainId), transport: http(chain.rpcUrl), cacheTime: 0 });
const evmPay = () => createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
const url = (path: string, query: Record<string, string> = {}) => `${service.url}/api/v1/paid/${path}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`;
const price = (id: string, surface: 'http' | 'mcp' = 'http') => usdToAtomic(service.percall.catalogue.products.find((p) => p.id === id)![surface]!.price);

/** Pays a route with the official EVM client; checks the buyer paid exactly the price, once. */
async function paid(id: string, init: { query?: Record<string, string>; body?: unknown } = {}): Promise<{ body: Record<string, unknown>; settlement: SettleResponse }> {
  const before = await balances(chain);
  const method = init.body === undefined ? 'GET' : 'POST';
  const response = await evmPay()(url(id, init.query), method === 'POST' ? { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) } : {});
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, `${id}: ${JSON.stringify(body)}`).toBe(200);
  expect(before.buyer - (await balances(chain)).buyer, id).toBe(price(id));
  return { body, settlement: settlementOf(response)! };
}

let mcpClient: Client | undefined;
async function mcp(): Promise<Client> {
  if (mcpClient) return mcpClient;
  const client = new Client({ name: 'payments-products-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
  await client.listTools(); // as agents do: the client then checks each structuredContent against the tool's output schema
  return (mcpClient = client);
}

/** Calls a tool unpaid (a payment-required result), then paid; checks the charge. */
async function paidTool(tool: string, args: Record<string, unknown>, id: string): Promise<Record<string, unknown>> {
  const client = await mcp();
  const unpaid = (await client.callTool({ name: tool, arguments: args })) as { isError?: boolean; structuredContent?: unknown };
  expect(unpaid.isError).toBe(true);
  const payment = await signPayment(chain.buyer.privateKey, unpaid.structuredContent as PaymentRequired);
  const before = await balances(chain);
  const result = (await client.callTool({ name: tool, arguments: args, _meta: { 'x402/payment': payment } })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
  expect(result.isError, `${tool}: ${JSON.stringify(result.structuredContent)}`).toBeFalsy();
  expect(before.buyer - (await balances(chain)).buyer, tool).toBe(price(id, 'mcp'));
  return result.structuredContent!;
}

/** An upto settlement made by the official client and facilitator (Permit2 witness through the upto proxy). */
async function uptoSettlement(charge: bigint): Promise<string> {
  const facilitator = createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: DEV_ROLES.spare.privateKey });
  const requirements: PaymentRequirements = {
    scheme: 'upto',
    network: chain.network,
    amount: '50000',
    asset: chain.usdc,
    payTo: chain.payTo,
    maxTimeoutSeconds: 300,
    extra: { name: chain.usdcName, version: chain.usdcVersion, facilitatorAddress: facilitator.address },
  };
  const client = new x402Client().register(chain.network, new UptoClientScheme(toClientEvmSigner(privateKeyToAccount(chain.buyer.privateKey), pub())));
  client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
  const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: 'http://127.0.0.1/upto', description: 'upto', mimeType: 'application/json' }, accepts: [requirements] });
  const settled = await facilitator.settle(payload, { ...requirements, amount: charge.toString() });
  expect(settled.success, JSON.stringify(settled)).toBe(true);
  return settled.transaction;
}

describe('settlement_verify and x402_receipt_lookup on real settlements', () => {
  it('an x402 exact settlement (percall’s own), paid over HTTP; the receipt lookup returns the same record', async () => {
    const { settlement: made } = await paid('echo', { query: { hello: 'world' } });
    const { body: out, settlement } = await paid('settlement-verify', { body: { transaction: made.transaction, network: chain.network, pay_to: chain.payTo, amount: price('echo').toString() } });
    const receipt = await pub().getTransactionReceipt({ hash: made.transaction as Hex });
    expect(out).toMatchObject({
      verified: true,
      status: 'settled',
      mechanism: 'eip3009',
      network: chain.network,
      payer: chain.buyer.address,
      payee: getAddress(chain.payTo),
      amount: '0.01',
      amount_atomic: '10000',
      asset: chain.usdc,
      block_number: Number(receipt.blockNumber),
      source: 'rpc',
      reasons: [],
    });
    // The head moved on by the verification's own settlement at least.
    expect(out.confirmations).toBeGreaterThanOrEqual(1);
    const { body: lookup } = await paid('x402-receipt-lookup', { query: { verification_id: out.verification_id as string } });
    expect(lookup.verification).toEqual(out);
    expect(lookup.confirmations_now).toBe(Number((await pub().getBlockNumber()) - receipt.blockNumber + 1n) - 1);
    expect(Number(settlement.transaction.length)).toBe(66);
  });

  it('an upto settlement (Permit2 witness), a batch-settlement claim and a Solana SPL transfer; over MCP too', async () => {
    const upto = await uptoSettlement(7_000n);
    const uptoOut = await paidTool('settlement_verify', { transaction: upto, network: chain.network, amount: '7000' }, 'settlement-verify');
    expect(uptoOut).toMatchObject({ verified: true, mechanism: 'permit2-witness', payer: chain.buyer.address, payee: getAddress(chain.payTo), amount_atomic: '7000' });

    // Two voucher calls on a fresh channel, then the service's claim round.
    const signer = toClientEvmSigner(privateKeyToAccount(chain.buyer.privateKey), pub());
    const salt = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as Hex;
    const client = new x402Client().register(chain.network, new BatchSettlementEvmScheme(signer, { salt }));
    client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    const batchPay = wrapFetchWithPayment(fetch, client);
    for (let i = 0; i < 2; i++) expect((await batchPay(url('time'))).status).toBe(200);
    await service.percall.batchClaims!.runOnce();
    const claim = (await service.percall.store.batchTransactions(10)).find((t) => t.kind === 'claim')!;
    const { body: claimOut } = await paid('settlement-verify', { body: { transaction: claim.txHash, network: chain.network, pay_to: chain.payTo, amount: (2n * price('time')).toString() } });
    expect(claimOut).toMatchObject({ verified: true, mechanism: 'batch-settlement-claim', payer: chain.buyer.address, payee: getAddress(chain.payTo), amount_atomic: '20000' });

    const solanaPay = await createSolanaPayingFetch(solana.buyer.secretKey, { rpcUrl: solana.rpcUrl });
    const solanaPaid = await solanaPay(url('time'));
    expect(solanaPaid.status).toBe(200);
    const signature = settlementOf(solanaPaid)!.transaction;
    const { body: splOut } = await paid('settlement-verify', { body: { transaction: signature, network: solana.network, pay_to: solana.payTo, amount: '10000' } });
    expect(splOut).toMatchObject({ verified: true, mechanism: 'spl-transfer', network: solana.network, payer: solana.buyer.address, payee: solana.payTo, amount: '0.01', asset: solana.mint, block_number: null, commitment: 'confirmed' });
    expect(splOut.slot).toEqual(expect.any(Number));
    const lookup = await paidTool('x402_receipt_lookup', { verification_id: splOut.verification_id }, 'x402-receipt-lookup');
    expect(lookup.verification).toEqual(splOut);
  });

  it('a plain USDC transfer is not an x402 settlement; a reverted transaction says so', async () => {
    const w = createWalletClient({ account: privateKeyToAccount(chain.buyer.privateKey), chain: viemDevChain(chain.rpcUrl, chain.chainId), transport: http(chain.rpcUrl) });
    const other = privateKeyToAccount(generatePrivateKey()).address;
    const plain = await w.writeContract({ address: chain.usdc, abi: usdcAbi, functionName: 'transfer', args: [other, 5n] });
    await pub().waitForTransactionReceipt({ hash: plain, pollingInterval: 50 });
    const { body: plainOut } = await paid('settlement-verify', { body: { transaction: plain, network: chain.network } });
    expect(plainOut).toMatchObject({ verified: false, status: 'not_a_settlement', mechanism: null });
    expect((plainOut.reasons as string[])[0]).toMatch(/plain USDC transfer/);
    const reverted = await w.sendTransaction({ to: chain.usdc, data: '0xdeadbeef', gas: 100_000n });
    await pub().waitForTransactionReceipt({ hash: reverted, pollingInterval: 50 });
    const { body: revertedOut } = await paid('settlement-verify', { body: { transaction: reverted, network: chain.network } });
    expect(revertedOut).toMatchObject({ verified: false, status: 'reverted' });
  });

  it('refused before payment: a network not read here (422), a malformed hash (400); an unknown id is 404, never charged', async () => {
    const before = await balances(chain);
    const quote = async (body: unknown) => {
      const response = await fetch(url('settlement-verify'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return decodePaymentRequiredHeader(response.headers.get('payment-required')!);
    };
    expect((await quote({ transaction: '0x12', network: chain.network })).error).toMatch(/transaction/);
    const unknown = await evmPay()(url('x402-receipt-lookup', { verification_id: 'ver_00000000000000000000000000' }));
    expect(unknown.status).toBe(404);
    const other = await evmPay()(url('settlement-verify'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transaction: `0x${'1'.repeat(64)}`, network: 'eip155:1' }) });
    expect(other.status).toBe(422);
    expect(await balances(chain)).toEqual(before);
  });
});

/** A small HTTP server on loopback: a facilitator whose manifest lies, and a seller whose 402 is malformed. */
async function liar(): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Hono();
  app.get('/supported', (c) => c.json({ kinds: [{ x402Version: 2, scheme: 'exact', network: chain.network }], extensions: [], signers: {} }));
  app.get('/.well-known/x402', (c) => c.json({ kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }] }));
  app.get('/paid', (c) => c.body('{}', 402, { 'payment-required': 'bm90IGpzb24', 'www-authenticate': 'Payment id="x", realm=' }));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('x402_facilitator_health, b402_preflight and mpp_admission_gate against local facilitators and sellers', () => {
  it('facilitator health: the official facilitator over HTTP is up; a lying one is degraded; a closed port is down (over MCP)', async () => {
    const [facilitator, lying] = await Promise.all([startFacilitatorServer(chain), liar()]);
    try {
      const { body: up } = await paid('x402-facilitator-health', { query: { facilitator_url: facilitator.url } });
      expect(up).toMatchObject({ status: 'degraded', reasons: ['served over plain HTTP, not TLS'], http_status: 200, tls: false, x402_versions: [1, 2], manifest: { found: false } });
      expect([...new Set((up.kinds as { scheme: string }[]).map((k) => k.scheme))].sort()).toEqual(['batch-settlement', 'exact', 'upto']);
      const { body: lie } = await paid('x402-facilitator-health', { query: { facilitator_url: lying.url } });
      expect(lie).toMatchObject({ status: 'degraded', manifest: { found: true, agrees: false, missing_from_supported: ['exact@eip155:8453'] } });
      const down = await paidTool('x402_facilitator_health', { facilitator_url: 'http://127.0.0.1:9' }, 'x402-facilitator-health');
      expect(down).toMatchObject({ status: 'down', http_status: null });
    } finally {
      await Promise.all([facilitator.close(), lying.close()]);
    }
  });

  it("preflight against percall's own 402s (x402 v2, and MPP) and a malformed one", async () => {
    const { body: own } = await paid('b402-preflight', { body: { url: url('time'), payer: chain.buyer.address } });
    expect(own).toMatchObject({ go: true, recommended: `x402 exact@${chain.network}`, x402_version: 2 });
    expect((own.options as { payer_balance_atomic: string | null }[])[0]!.payer_balance_atomic).toBe(((await balances(chain)).buyer + price('b402-preflight')).toString());
    const mpp = await paidTool('b402_preflight', { url: url('endpoint-task-evaluation') }, 'b402-preflight');
    expect(mpp).toMatchObject({ go: true, mpp: [expect.objectContaining({ method: 'evm', intent: 'charge', valid: true, chain_id: chain.chainId })] });
    const lying = await liar();
    try {
      const { body: malformed } = await paid('b402-preflight', { body: { url: `${lying.url}/paid` } });
      expect(malformed).toMatchObject({ go: false, options: [] });
      expect((malformed.reasons as string[]).join(' ')).toMatch(/PAYMENT-REQUIRED is not base64 JSON/);
    } finally {
      await lying.close();
    }
  });

  it("admission gate against percall's MPP challenges: an EVM payer admitted, a Solana payer only on x402, a low cap denied", async () => {
    const target = url('endpoint-task-evaluation');
    const { body: admitted } = await paid('mpp-admission-gate', { body: { resource_url: target, payer: chain.buyer.address, max_amount: '0.05' } });
    expect(admitted).toMatchObject({ admitted: true, rail: 'mpp', method: 'evm', matching_challenge: { amount_atomic: '10000', recipient: getAddress(chain.payTo), valid: true } });
    const solanaPayer = await paidTool('mpp_admission_gate', { resource_url: target, payer: solana.buyer.address }, 'mpp-admission-gate');
    expect(solanaPayer).toMatchObject({ admitted: true, rail: 'x402', method: `exact@${solana.network}` });
    const { body: capped } = await paid('mpp-admission-gate', { body: { resource_url: target, payer: chain.buyer.address, max_amount: '0.001' } });
    expect(capped).toMatchObject({ admitted: false, rail: null });
  });

  it('compile-payment-policy: percall’s own 402 passes a policy that allows it and fails one that caps below its price (HTTP and MCP)', async () => {
    const sample = decodePaymentRequiredHeader((await fetch(url('time'))).headers.get('payment-required')!);
    const path = service.percall.catalogue.products.find((p) => p.id === 'compile-payment-policy')!.http!.path;
    const before = await balances(chain);
    const response = await evmPay()(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rules: { per_call_max_usd: '0.05', daily_max_usd: '2', networks: [chain.network] }, samples: [sample] }) });
    const allowed = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(allowed)).toBe(200);
    expect(before.buyer - (await balances(chain)).buyer).toBe(price('compile-payment-policy'));
    (await import('node:fs')).writeFileSync('/tmp/compile-policy.json', JSON.stringify(allowed, null, 2));
    expect(allowed).toMatchObject({ method: 'structured', policy: { networks: [chain.network], per_call_max_usd: '0.05' }, tests: [{ decision: 'allow', resource: url('time') }] });
    const capped = await paidTool('compile_payment_policy', { rules: { per_call_max_usd: '0.005' }, samples: [sample] }, 'compile-payment-policy');
    expect(capped.tests).toMatchObject([{ decision: 'deny', reasons: ['no payment option passes the policy'] }]);
  });
});
