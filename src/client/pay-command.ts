import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { getBase58Encoder } from '@solana/kit';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { Network, PaymentPayload } from '@x402/core/types';
import { Receipt } from 'mppx';
import { createPublicClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { BatchSettlementDepositStrategy } from '@x402/evm/batch-settlement/client';
import { createMppPayingFetch, createPayingFetch, createSolanaPayingFetch } from './paying-fetch.ts';
import { USDC_EIP712 } from '../devchain/contracts.ts';
import { approvePermit2 } from '../devchain/permit2.ts';
import type { DevInfo } from '../devchain/stack.ts';
import type { SolanaDevInfo } from '../devchain/solana.ts';
import { atomicToUsd, usdToAtomic } from '../money.ts';

const USAGE = `usage: percall pay [METHOD] URL [--json BODY] [--network evm|solana] [--scheme exact|upto|batch-settlement] [--deposit USD] [--rail x402|mpp]

Pays a route with the official clients and prints the response and the settlement:
  --network evm     x402 on the EVM network (default; @x402/fetch + @x402/evm)
  --network solana  x402 exact on Solana (@x402/fetch + @x402/svm)
  --scheme upto     x402 upto on EVM: authorize up to the quoted maximum, be charged the actual amount
                    (approves Permit2 once if the server answers 412 permit2_allowance_required)
  --scheme batch-settlement
                    x402 batch-settlement on EVM: the first call deposits into a payment channel, later
                    calls send only signed vouchers (no transaction); the channel (its salt and the
                    client's records) is kept in <PERCALL_DATA_DIR>/batch-settlement/ so later runs reuse it
  --deposit USD     with batch-settlement: the size of each deposit (default: the client's policy,
                    the minimum deposit the service announces, else 5 times the price)
  --rail mpp        MPP (Authorization: Payment, mppx evm charge) instead of x402
Keys: PERCALL_PAYER_KEY (EVM, 0x…) and PERCALL_SOLANA_PAYER_KEY (base58, 64 bytes) with PERCALL_SOLANA_RPC_URL,
or the dev buyers from <PERCALL_DATA_DIR>/dev.json and dev-solana.json (written by npm start).`;

interface PayArgs {
  method: string;
  url: string;
  body?: string;
  network: 'evm' | 'solana';
  scheme: 'exact' | 'upto' | 'batch-settlement';
  /** batch-settlement: each deposit, in USDC atomic units. */
  deposit?: bigint;
  rail: 'x402' | 'mpp';
}

/** Removes `--flag value` from `args` and returns the value, or undefined when absent. */
function takeOption(args: string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value`);
  args.splice(at, 2);
  return value;
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function parsePayArgs(argv: string[]): PayArgs {
  const rest = [...argv];
  const body = takeOption(rest, '--json');
  const network = oneOf('--network', takeOption(rest, '--network'), ['evm', 'solana'], 'evm');
  const scheme = oneOf('--scheme', takeOption(rest, '--scheme'), ['exact', 'upto', 'batch-settlement'], 'exact');
  const depositUsd = takeOption(rest, '--deposit');
  const rail = oneOf('--rail', takeOption(rest, '--rail'), ['x402', 'mpp'], 'x402');
  if (scheme === 'batch-settlement' && rail === 'mpp') throw new Error('batch-settlement is an x402 scheme: drop --rail mpp (MPP pays each call with an evm charge)');
  if (scheme === 'batch-settlement' && network === 'solana') throw new Error('batch-settlement is offered on EVM only; Solana pays exact');
  if (depositUsd !== undefined && scheme !== 'batch-settlement') throw new Error('--deposit sizes a batch-settlement channel deposit: add --scheme batch-settlement');
  const deposit = depositUsd === undefined ? undefined : positiveUsd('--deposit', depositUsd);
  if (rail === 'mpp' && (network !== 'evm' || scheme !== 'exact')) throw new Error('--rail mpp pays with the EVM key (evm charge): drop --network/--scheme');
  if (network === 'solana' && scheme === 'upto') throw new Error('upto is offered on EVM only; Solana pays exact');
  const [first, second] = rest;
  if (!first) throw new Error(USAGE);
  const hasMethod = second !== undefined;
  const method = (hasMethod ? first : body !== undefined ? 'POST' : 'GET').toUpperCase();
  const url = hasMethod ? second : first;
  if (!/^https?:\/\//.test(url)) throw new Error(`not an http(s) URL: ${url}\n\n${USAGE}`);
  return { method, url, body, network, scheme, ...(deposit !== undefined ? { deposit } : {}), rail };
}

function positiveUsd(flag: string, value: string): bigint {
  let atomic: bigint;
  try {
    atomic = usdToAtomic(value);
  } catch {
    throw new Error(`${flag} must be a USD amount such as 1 or 0.50 (at most 6 decimals), not ${JSON.stringify(value)}`);
  }
  if (atomic <= 0n) throw new Error(`${flag} must be more than 0`);
  return atomic;
}

/** The data directory: the dev service's files (dev.json, …) and the paying client's channels. */
function dataDir(): string {
  return resolve(process.env.PERCALL_DATA_DIR ?? '.percall');
}

async function readDevFile<T>(name: string): Promise<T | undefined> {
  const path = join(dataDir(), name);
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

async function evmPayer(): Promise<{ key: Hex; rpcUrl?: string; dev?: DevInfo }> {
  // A dev service's dev.json also names its test USDC, which the payer must allow, whoever's key pays.
  const dev = await readDevFile<DevInfo>('dev.json');
  const fromEnv = process.env.PERCALL_PAYER_KEY;
  if (fromEnv) return { key: fromEnv as Hex, rpcUrl: process.env.PERCALL_RPC_URL ?? dev?.rpcUrl, dev };
  if (!dev) throw new Error('no payer key: set PERCALL_PAYER_KEY, or run `npm start` first so .percall/dev.json exists');
  return { key: dev.buyerPrivateKey, rpcUrl: dev.rpcUrl, dev };
}

async function solanaPayer(): Promise<{ secretKey: Uint8Array; rpcUrl?: string; dev?: SolanaDevInfo }> {
  const fromEnv = process.env.PERCALL_SOLANA_PAYER_KEY;
  if (fromEnv) return { secretKey: getBase58Encoder().encode(fromEnv) as Uint8Array, rpcUrl: process.env.PERCALL_SOLANA_RPC_URL };
  const dev = await readDevFile<SolanaDevInfo>('dev-solana.json');
  if (!dev) throw new Error('no Solana payer key: set PERCALL_SOLANA_PAYER_KEY, or run `npm start` first so .percall/dev-solana.json exists');
  return { secretKey: getBase58Encoder().encode(dev.buyerSecretKey) as Uint8Array, rpcUrl: dev.rpcUrl, dev };
}

/** What the client signed for the last payment it sent. */
interface Paid {
  /** The quoted amount (exact), or maximum (upto, batch-settlement voucher increment). */
  amount?: string;
  /** batch-settlement: the deposit that went with the voucher, if any. */
  deposit?: string;
}

/** A batch-settlement payload's deposit amount, or undefined for a voucher (or another scheme). */
function depositOf(payload: PaymentPayload): string | undefined {
  const inner = payload.payload as { type?: unknown; deposit?: { amount?: unknown } };
  return inner.type === 'deposit' && typeof inner.deposit?.amount === 'string' ? inner.deposit.amount : undefined;
}

/** The channel state a batch-settlement PAYMENT-RESPONSE reports (`extra.channelState`), if well formed. */
function channelStateOf(extra: Record<string, unknown> | undefined): { channelId: string; balance: string; chargedCumulativeAmount: string; totalClaimed: string } | undefined {
  const state = extra?.channelState as Record<string, unknown> | undefined;
  const atomic = (v: unknown): v is string => typeof v === 'string' && /^\d{1,78}$/.test(v);
  if (!state || typeof state.channelId !== 'string' || !atomic(state.balance) || !atomic(state.totalClaimed)) return undefined;
  const charged = atomic(state.chargedCumulativeAmount) ? state.chargedCumulativeAmount : state.totalClaimed;
  return { channelId: state.channelId, balance: state.balance, chargedCumulativeAmount: charged, totalClaimed: state.totalClaimed };
}

/** The paying fetch for the chosen rail, network and scheme, and what it signed (for the printout). */
async function payingFetchFor(args: PayArgs, paid: Paid): Promise<{ fetch: typeof fetch; approvePermit2?: (asset: Hex) => Promise<unknown> }> {
  const onPayment = (payload: PaymentPayload) => {
    paid.amount = payload.accepted.amount;
    paid.deposit = depositOf(payload);
  };
  if (args.network === 'solana') {
    const { secretKey, rpcUrl, dev } = await solanaPayer();
    return { fetch: await createSolanaPayingFetch(secretKey, { rpcUrl, onPayment, allowedAssets: dev ? [{ network: dev.network as Network, asset: dev.mint }] : undefined }) };
  }
  const { key, rpcUrl, dev } = await evmPayer();
  if (args.rail === 'mpp') {
    const token = dev ? { chainId: dev.chainId, address: dev.asset, name: USDC_EIP712.name, version: USDC_EIP712.version } : undefined;
    return { fetch: createMppPayingFetch(key, token) };
  }
  // The dev chain's test USDC is not in the SDK's default asset list: allow it explicitly.
  const allowedAssets = dev ? [{ network: dev.network, asset: dev.asset }] : undefined;
  const batch = args.scheme === 'batch-settlement' ? await batchChannel(key, args) : undefined;
  const payingFetch = createPayingFetch(key, { rpcUrl, scheme: args.scheme, onPayment, allowedAssets, ...(batch ? { batch } : {}) });
  const approve = args.scheme === 'upto' && rpcUrl ? (asset: Hex) => approvePermit2Once(rpcUrl, key, asset) : undefined;
  return { fetch: payingFetch, approvePermit2: approve };
}

/**
 * Where the batch-settlement client keeps its channel across runs: the SDK's file storage (one record
 * per channel id) and a salt per payer and service. The channel id is derived from the channel's
 * config, salt included, and the stored record is looked up by that id: a fresh salt each run would
 * open (and fund) a new channel every time. The SDK's default salt (zero) is stable too, but would
 * share the channel with any other default client of the same key, whose vouchers would then disagree
 * with ours.
 */
async function batchChannel(key: Hex, args: PayArgs) {
  const directory = join(dataDir(), 'batch-settlement');
  const salt = await channelSalt(directory, privateKeyToAccount(key).address, new URL(args.url).origin);
  const deposit = args.deposit;
  const depositStrategy: BatchSettlementDepositStrategy | undefined =
    deposit === undefined
      ? undefined
      : ({ minimumDepositAmount }) => {
          if (deposit < BigInt(minimumDepositAmount)) throw new Error(`--deposit ${atomicToUsd(deposit)} does not cover this call: it needs at least ${atomicToUsd(minimumDepositAmount)} USDC`);
          return deposit;
        };
  return { storageDirectory: directory, salt, ...(depositStrategy ? { depositStrategy } : {}) };
}

/** The salt of this payer's channel with this service, created once and then read back. */
async function channelSalt(directory: string, payer: string, service: string): Promise<Hex> {
  const name = createHash('sha256').update(`${payer.toLowerCase()} ${service}`).digest('hex').slice(0, 32);
  const path = join(directory, 'salts', `${name}.json`);
  const existing = await readSalt(path);
  if (existing) return existing;
  await mkdir(dirname(path), { recursive: true });
  const salt: Hex = `0x${randomBytes(32).toString('hex')}`;
  // Written whole, then linked into place: a concurrent run either wins or reads the winner's salt.
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ payer, service, salt }, null, 2)}\n`, { mode: 0o600 });
  try {
    await link(temporary, path);
    return salt;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const winner = await readSalt(path);
    if (!winner) throw new Error(`unreadable channel salt in ${path}`);
    return winner;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

async function readSalt(path: string): Promise<Hex | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const salt = (JSON.parse(text) as { salt?: unknown }).salt;
  if (typeof salt !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(salt)) throw new Error(`no valid channel salt in ${path}`);
  return salt as Hex;
}

/** The one-time ERC-20 approval of Permit2 by the payer, for the asset the server quoted. */
async function approvePermit2Once(rpcUrl: string, key: Hex, asset: Hex): Promise<unknown> {
  const chainId = await createPublicClient({ transport: http(rpcUrl) }).getChainId();
  return approvePermit2(rpcUrl, chainId, asset, key);
}

export async function runPayCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    out(USAGE);
    return 0;
  }
  const args = parsePayArgs(argv);
  const paid: Paid = {};
  const { fetch: payingFetch, approvePermit2: approve } = await payingFetchFor(args, paid);
  const init: RequestInit = { method: args.method };
  if (args.body !== undefined) init.body = args.body;
  if (args.body !== undefined) init.headers = { 'content-type': 'application/json' };
  let response = await payingFetch(args.url, init);
  if (response.status === 412 && approve) {
    // upto needs the payer's one-time Permit2 approval: give it, then pay again.
    const required = decodePaymentRequiredHeader(response.headers.get('payment-required') ?? '');
    const asset = required.accepts.find((a) => a.scheme === 'upto')?.asset as Hex | undefined;
    if (!asset) throw new Error('the server asked for a Permit2 approval without an upto quote');
    out('Permit2 approval required: approving once, then paying again');
    await approve(asset);
    response = await payingFetch(args.url, init);
  }
  const text = await response.text();
  out(`HTTP ${response.status} ${response.statusText}`);
  out(prettyJson(text));
  const settlementHeader = response.headers.get('payment-response');
  if (settlementHeader) {
    const settlement = decodePaymentResponseHeader(settlementHeader);
    out('');
    out(`settlement: ${settlement.success ? 'settled' : `failed (${settlement.errorReason})`}`);
    out(`  transaction: ${settlement.transaction || '-'}`);
    out(`  network:     ${settlement.network}`);
    if (settlement.payer) out(`  payer:       ${settlement.payer}`);
    // `exact` settlements do not echo the amount: it is the one the client signed.
    const amount = settlement.amount ?? paid.amount;
    if (amount) out(`  amount:      ${atomicToUsd(amount)} USDC (${amount} atomic)${args.scheme === 'upto' && paid.amount ? `, authorized up to ${atomicToUsd(paid.amount)}` : ''}`);
    if (args.scheme === 'batch-settlement') {
      // A deposit is the one transaction; a voucher moves nothing until the service claims.
      out(`  deposit:     ${paid.deposit ? `${atomicToUsd(paid.deposit)} USDC into the channel` : 'none (voucher only, nothing on chain)'}`);
      const channel = channelStateOf(settlement.extra);
      if (channel) {
        out(
          `  channel:     ${channel.channelId} balance ${atomicToUsd(channel.balance)} USDC, charged ${atomicToUsd(channel.chargedCumulativeAmount)}, claimed ${atomicToUsd(channel.totalClaimed)}`,
        );
      }
    }
  }
  const receiptHeader = response.headers.get('payment-receipt');
  if (receiptHeader) {
    const receipt = Receipt.deserialize(receiptHeader);
    out('');
    out(`MPP receipt: ${receipt.status} (${receipt.method})`);
    out(`  reference:   ${receipt.reference}`);
    out(`  timestamp:   ${receipt.timestamp}`);
  }
  return response.ok ? 0 : 1;
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

