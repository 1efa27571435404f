/**
 * b402_preflight: what an agent should know before paying a URL. One unpaid request (never paying);
 * its x402 requirements (v1 or v2) and MPP challenges decoded and checked, each payment option on:
 * well-formed (x402-endpoint-verify's judge), a known stablecoin (KNOWN_ASSETS, plus this instance's
 * own), a sane amount (over 0, at most MAX_SANE_USD) and timeout (1 s to 1 h), a valid, non-zero
 * payTo, and a network a facilitator settles (this service's, or PUBLIC_FACILITATOR_NETWORKS); with
 * `payer`, on a network this instance reads, the payer's balance (and, for `upto`, its Permit2
 * allowance) must cover the amount. `go` when at least one option passes every check.
 * Charged for any HTTP answer; a target that gives none is 422 (the caller's) or 502/504, not charged.
 */
import { z } from 'zod';
import { encodeFunctionData, decodeFunctionResult, isAddress, parseAbi, type Hex } from 'viem';
import { isAddress as isSolanaAddress } from '@solana/kit';
import { PERMIT2_ADDRESS } from '@x402/evm';
import { READ_EXTERNAL, evmAddress, fetchableUrl, product, type ProductContext } from '../../kit/index.ts';
import { callOrRevert } from '../../chain/evm.ts';
import { judgeChallenge, finding } from '../x402-endpoint-verify/judge.ts';
import { mppChallenges, probeUnpaid } from '../payment-terms.ts';
import { mppChallengeSchema } from '../mpp-challenge-schema.ts';
import { PUBLIC_FACILITATOR_NETWORKS, V1_NETWORKS, assetIn, knownAssets, type KnownAsset } from './known-assets.ts';

/** A price above this (USD) for one call is not sane. */
export const MAX_SANE_USD = 100;
const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)', 'function allowance(address, address) view returns (uint256)']);
const ZERO = /^0x0{40}$/;

const optionSchema = z.object({
  scheme: z.string().describe('x402 scheme, e.g. exact, upto'),
  network: z.string().describe('Network as the seller wrote it'),
  caip2: z.string().nullable().describe('The network as a CAIP-2 id (x402 v1 names mapped); null when unknown'),
  amount_atomic: z.string().describe('Amount in the asset’s atomic units, as the seller wrote it'),
  amount_usd: z.string().nullable().describe('The amount in USD, for a known stablecoin; null otherwise'),
  asset: z.string().describe('Token contract or mint'),
  asset_symbol: z.string().nullable().describe('USDC or USDT when the asset is a known stablecoin on that network, else null'),
  pay_to: z.string().describe('Recipient'),
  max_timeout_seconds: z.number().nullable().describe('Seconds the payment stays valid, as the seller wrote it'),
  facilitator_supported: z.boolean().describe('Whether this service’s facilitator or a public one settles the network'),
  payer_balance_atomic: z.string().nullable().describe('The named payer’s balance of the asset (null without payer, or on a network not read here)'),
  payer_permit2_allowance_atomic: z.string().nullable().describe('upto only: the payer’s allowance to Permit2 (null otherwise)'),
  ok: z.boolean().describe('Whether this option passes every check'),
  problems: z.array(z.string()).describe('Why not (empty when ok)'),
});

export const b402Preflight = product({
  id: 'b402-preflight',
  title: 'b402 preflight',
  description:
    "Checks a paid URL before you pay it, without paying: fetches its 402, decodes the x402 (v1/v2, BNB Chain's b402 included) requirements and MPP challenges, and checks each option (well-formed, known stablecoin, sane amount and timeout, valid recipient, network a facilitator settles, optionally the payer's balance and allowance), then answers go or no-go with the reasons.",
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({
    url: fetchableUrl().describe('URL of the paid endpoint'),
    method: z.enum(['GET', 'POST']).default('GET').describe('HTTP method to probe with'),
    payer: evmAddress().optional().describe('EVM address that would pay: its balance and allowance are checked on networks this instance reads'),
  }),
  inputExample: { url: 'https://api.example.com/paid/resource', method: 'GET' },
  output: z.object({
    url: z.string().describe('The probed URL (after redirects)'),
    http_status: z.int().describe('HTTP status of the unpaid answer'),
    go: z.boolean().describe('True when at least one payment option (x402 or MPP) passes every check'),
    reasons: z.array(z.string()).describe('Why no-go (empty when go); the first passing option when go is in `recommended`'),
    recommended: z.string().nullable().describe('The first passing option, as "x402 <scheme>@<network>" or "mpp <method>/<intent>"'),
    x402_version: z.int().nullable().describe('x402 version of the challenge (null when none)'),
    findings: z.array(finding).describe('Spec findings on the x402 challenge (x402-endpoint-verify’s)'),
    options: z.array(optionSchema).describe('Each x402 payment option, checked'),
    mpp: z.array(mppChallengeSchema).describe('Each MPP Payment challenge, checked against the MPP spec'),
    checked_at: z.iso.datetime().describe('When the probe was made'),
  }),
  outputExample: {
    "url": "http://127.0.0.1:33467/api/v1/paid/time",
    "http_status": 402,
    "go": true,
    "reasons": [],
    "recommended": "x402 exact@eip155:31337",
    "x402_version": 2,
    "findings": [],
    "options": [
      {
        "scheme": "exact",
        "network": "eip155:31337",
        "caip2": "eip155:31337",
        "amount_atomic": "10000",
        "amount_usd": "0.01",
        "asset": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "asset_symbol": "USDC",
        "pay_to": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        "max_timeout_seconds": 300,
        "facilitator_supported": true,
        "payer_balance_atomic": "999809995",
        "payer_permit2_allowance_atomic": null,
        "ok": true,
        "problems": []
      },
      {
        "scheme": "batch-settlement",
        "network": "eip155:31337",
        "caip2": "eip155:31337",
        "amount_atomic": "10000",
        "amount_usd": "0.01",
        "asset": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "asset_symbol": "USDC",
        "pay_to": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        "max_timeout_seconds": 300,
        "facilitator_supported": true,
        "payer_balance_atomic": "999809995",
        "payer_permit2_allowance_atomic": null,
        "ok": true,
        "problems": []
      },
      {
        "scheme": "exact",
        "network": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
        "caip2": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
        "amount_atomic": "10000",
        "amount_usd": "0.01",
        "asset": "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
        "asset_symbol": "USDC",
        "pay_to": "iaHTvXXphUZHhT8gfnnjjGscuc73NqSVrFvwepRso6d",
        "max_timeout_seconds": 300,
        "facilitator_supported": true,
        "payer_balance_atomic": null,
        "payer_permit2_allowance_atomic": null,
        "ok": true,
        "problems": []
      }
    ],
    "mpp": [],
    "checked_at": "2026-11-24T00:09:58.157Z"
  },
  run: async (input, ctx) => {
    const response = await probeUnpaid(input.url, input.method ?? 'GET', ctx);
    const verdict = judgeChallenge(response);
    const required = verdict.x402_version === null ? [] : rawAccepts(response);
    const options = await Promise.all(verdict.accepts.map((a, i) => checkOption(a, required[i], input.payer, ctx)));
    const mpp = await mppChallenges(response, ctx.now);
    const errors = verdict.findings.filter((f) => f.severity === 'error' && f.check !== 'bazaar');
    const structural = errors.filter((f) => !f.check.startsWith('accepts.'));
    const passing = structural.length === 0 ? options.find((o) => o.ok) : undefined;
    const mppPassing = mpp.find((c) => c.valid);
    const recommended = passing ? `x402 ${passing.scheme}@${passing.network}` : mppPassing ? `mpp ${mppPassing.method}/${mppPassing.intent}` : null;
    const reasons: string[] = [];
    if (!recommended) {
      if (response.status !== 402) reasons.push(`the URL answered ${response.status}, not 402: it asks for no payment`);
      reasons.push(...structural.map((f) => `${f.check}: ${f.message}`));
      for (const o of options) reasons.push(...o.problems.map((p) => `x402 ${o.scheme}@${o.network}: ${p}`));
      for (const c of mpp) reasons.push(...c.problems.map((p) => `mpp ${c.method ?? '?'}/${c.intent ?? '?'}: ${p}`));
      if (response.status === 402 && options.length === 0 && mpp.length === 0) reasons.push('the 402 carries no x402 requirements and no MPP challenge');
    }
    return { url: response.url, http_status: response.status, go: recommended !== null, reasons, recommended, x402_version: verdict.x402_version, findings: verdict.findings, options, mpp, checked_at: ctx.now.toISOString() };
  },
});

/** The accepts entries as the seller sent them (for fields the judge does not keep). */
function rawAccepts(response: { headers: Record<string, string>; body: Buffer }): Record<string, unknown>[] {
  try {
    const header = response.headers['payment-required'];
    const value = header ? JSON.parse(Buffer.from(header, 'base64').toString('utf8')) : JSON.parse(response.body.toString('utf8'));
    return Array.isArray(value?.accepts) ? value.accepts : [];
  } catch {
    return [];
  }
}

function knownAsset(ctx: ProductContext, network: string, asset: string): KnownAsset | undefined {
  return assetIn(knownAssets(ctx), network, asset);
}

function usd(atomic: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const fraction = (atomic % scale).toString().padStart(decimals, '0').slice(0, 6).replace(/0+$/, '');
  return `${atomic / scale}.${fraction.padEnd(2, '0')}`;
}

async function checkOption(
  a: { scheme: string; network: string; amount: string; asset: string; pay_to: string },
  raw: Record<string, unknown> | undefined,
  payer: string | undefined,
  ctx: ProductContext,
): Promise<z.infer<typeof optionSchema>> {
  const problems: string[] = [];
  const caip2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(a.network) ? a.network : (V1_NETWORKS[a.network] ?? null);
  if (!caip2) problems.push(`unknown network ${a.network}`);
  const evm = caip2?.startsWith('eip155:') ?? false;
  const asset = caip2 ? knownAsset(ctx, caip2, a.asset) : undefined;
  if (!asset) problems.push(`asset ${a.asset} is not a known stablecoin on ${a.network}`);
  const amount = /^\d+$/.test(a.amount) ? BigInt(a.amount) : undefined;
  if (amount === undefined || amount === 0n) problems.push(`amount ${a.amount} is not a positive integer of atomic units`);
  const amountUsd = amount !== undefined && asset ? usd(amount, asset.decimals) : null;
  if (amountUsd !== null && Number(amountUsd) > MAX_SANE_USD) problems.push(`amount ${amountUsd} USD is over ${MAX_SANE_USD} USD for one call`);
  const timeout = typeof raw?.maxTimeoutSeconds === 'number' ? raw.maxTimeoutSeconds : null;
  if (timeout === null || !(timeout >= 1 && timeout <= 3600)) problems.push(`maxTimeoutSeconds ${String(timeout)} is not between 1 and 3600`);
  const validPayTo = evm ? isAddress(a.pay_to) && !ZERO.test(a.pay_to) : caip2?.startsWith('solana:') ? isSolanaAddress(a.pay_to) : false;
  if (!validPayTo) problems.push(`payTo ${a.pay_to} is not a valid recipient on ${a.network}`);
  const facilitatorSupported = caip2 !== null && ((ctx.payments?.networks ?? []).includes(caip2) || PUBLIC_FACILITATOR_NETWORKS.includes(caip2));
  if (!facilitatorSupported) problems.push(`no known facilitator settles ${a.network}`);
  let balance: bigint | null = null;
  let allowance: bigint | null = null;
  const base = ctx.chains?.evm('base');
  if (payer && base && base.network === caip2 && isAddress(a.asset) && amount !== undefined) {
    const read = async (fn: 'balanceOf' | 'allowance', args: readonly [Hex] | readonly [Hex, Hex]) => {
      const data = await callOrRevert(base, { to: a.asset, data: encodeFunctionData({ abi: ERC20, functionName: fn, args } as never) }, 'latest');
      return data === null ? 0n : (decodeFunctionResult({ abi: ERC20, functionName: fn, data }) as bigint);
    };
    balance = await read('balanceOf', [payer as Hex]);
    if (balance < amount) problems.push(`the payer holds ${balance} atomic units, less than ${amount}`);
    if (a.scheme === 'upto') {
      allowance = await read('allowance', [payer as Hex, PERMIT2_ADDRESS]);
      if (allowance < amount) problems.push('the payer has not approved Permit2 for this amount (upto needs it)');
    }
  }
  return {
    scheme: a.scheme,
    network: a.network,
    caip2,
    amount_atomic: a.amount,
    amount_usd: amountUsd,
    asset: a.asset,
    asset_symbol: asset?.symbol ?? null,
    pay_to: a.pay_to,
    max_timeout_seconds: timeout,
    facilitator_supported: facilitatorSupported,
    payer_balance_atomic: balance === null ? null : balance.toString(),
    payer_permit2_allowance_atomic: allowance === null ? null : allowance.toString(),
    ok: problems.length === 0,
    problems,
  };
}
