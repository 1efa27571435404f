import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { Hex } from 'viem';
import { createPayingFetch } from './paying-fetch.ts';
import type { DevInfo } from '../devchain/stack.ts';
import { atomicToUsd } from '../money.ts';

const USAGE = `usage: percall pay [METHOD] URL [--json BODY]

Pays an x402 route with the official @x402/fetch client and prints the response and the settlement.
The payer key is PERCALL_PAYER_KEY, or the dev buyer from <PERCALL_DATA_DIR>/dev.json (written by npm start).`;

interface PayArgs {
  method: string;
  url: string;
  body?: string;
}

export function parsePayArgs(argv: string[]): PayArgs {
  const rest = [...argv];
  let body: string | undefined;
  const jsonAt = rest.indexOf('--json');
  if (jsonAt >= 0) {
    body = rest[jsonAt + 1];
    if (body === undefined) throw new Error('--json needs a body');
    rest.splice(jsonAt, 2);
  }
  const [first, second] = rest;
  if (!first) throw new Error(USAGE);
  const hasMethod = second !== undefined;
  const method = (hasMethod ? first : body !== undefined ? 'POST' : 'GET').toUpperCase();
  const url = hasMethod ? second : first;
  if (!/^https?:\/\//.test(url)) throw new Error(`not an http(s) URL: ${url}\n\n${USAGE}`);
  return { method, url, body };
}

async function payerKey(): Promise<{ key: Hex; rpcUrl?: string; dev?: DevInfo }> {
  const fromEnv = process.env.PERCALL_PAYER_KEY;
  if (fromEnv) return { key: fromEnv as Hex };
  const devFile = join(resolve(process.env.PERCALL_DATA_DIR ?? '.percall'), 'dev.json');
  let dev: DevInfo;
  try {
    dev = JSON.parse(await readFile(devFile, 'utf8')) as DevInfo;
  } catch {
    throw new Error(`no payer key: set PERCALL_PAYER_KEY, or run \`npm start\` first so ${devFile} exists`);
  }
  return { key: dev.buyerPrivateKey, rpcUrl: dev.rpcUrl, dev };
}

export async function runPayCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    out(USAGE);
    return 0;
  }
  const args = parsePayArgs(argv);
  const { key, rpcUrl, dev } = await payerKey();
  let paid: string | undefined;
  const payingFetch = createPayingFetch(key, { rpcUrl, 
    onPayment: (payload) => (paid = payload.accepted.amount),
    // The dev chain's test USDC is not in the SDK's default asset list: allow it explicitly.
    allowedAssets: dev ? [{ network: dev.network, asset: dev.asset }] : undefined,
  });
  const init: RequestInit = { method: args.method };
  if (args.body !== undefined) init.body = args.body;
  if (args.body !== undefined) init.headers = { 'content-type': 'application/json' };
  const response = await payingFetch(args.url, init);
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
    const amount = settlement.amount ?? paid;
    if (amount) out(`  amount:      ${atomicToUsd(amount)} USDC (${amount} atomic)`);
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

