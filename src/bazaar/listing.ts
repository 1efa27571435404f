/**
 * One Bazaar discovery item, read as hostile input and normalized into a listing. An item that is
 * not an object with a usable `resource`, `accepts` (at least one requirement with a network,
 * scheme, pay-to and an integer amount) and x402 version is malformed: the snapshot counts it and
 * goes on. Everything kept is bounded (string lengths, schema sizes), so a list cannot bloat the store.
 */
import { z } from 'zod';
import type { Listing, ListingAccept } from '../products/kit/bazaar-market.ts';
import { classify } from './classify.ts';

export type { Listing, ListingAccept };

/** Known 6-decimal USD stablecoins (USDC) by network: their amounts are USD prices. */
const USDC: Record<string, string> = {
  'eip155:8453': '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  'eip155:84532': '0x036cbd53842c5426634e7929541ec2318f3dcf7e',
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
};

/** x402 v1 network names and their CAIP-2 ids. */
const V1_NETWORKS: Record<string, string> = {
  base: 'eip155:8453',
  'base-sepolia': 'eip155:84532',
  solana: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  'solana-devnet': 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  polygon: 'eip155:137',
  avalanche: 'eip155:43114',
};

const MAX_TEXT = 2_000;
const MAX_SCHEMA_CHARS = 16_000;
const MAX_ACCEPTS = 16;

const text = (max: number) => z.string().max(max);
const RawAccept = z.looseObject({
  scheme: text(64).min(1),
  network: text(128).min(1),
  asset: text(128).optional(),
  payTo: text(128).min(1),
  amount: z.union([text(80), z.number()]).optional(),
  maxAmountRequired: z.union([text(80), z.number()]).optional(),
  extra: z.unknown().optional(),
  outputSchema: z.unknown().optional(),
  description: z.unknown().optional(),
});
const RawItem = z.looseObject({
  resource: text(2048).min(1),
  type: text(32).optional(),
  x402Version: z.number().int().min(1).max(99),
  accepts: z.array(z.unknown()).min(1).max(64),
  lastUpdated: z.unknown().optional(),
  description: z.unknown().optional(),
  serviceName: z.unknown().optional(),
  tags: z.unknown().optional(),
  extensions: z.unknown().optional(),
  metadata: z.unknown().optional(),
  quality: z.unknown().optional(),
});

/** The listing an item describes, or why it is malformed. */
export function normalizeItem(item: unknown, source: string): { listing: Listing } | { malformed: string } {
  const parsed = RawItem.safeParse(item);
  if (!parsed.success) return { malformed: parsed.error.issues[0]?.path.join('.') || 'item' };
  const raw = parsed.data;
  if (!/^https?:\/\//i.test(raw.resource) && !/^[a-z][a-z0-9+.-]*:/i.test(raw.resource)) return { malformed: 'resource' };
  const accepts: ListingAccept[] = [];
  for (const entry of raw.accepts.slice(0, MAX_ACCEPTS)) {
    const accept = normalizeAccept(entry);
    if (accept) accepts.push(accept);
  }
  if (accepts.length === 0) return { malformed: 'accepts' };
  const bazaar = record(record(raw.extensions)?.bazaar);
  const info = record(bazaar?.info);
  const input = record(info?.input);
  const output = record(info?.output);
  const v1Output = record(record(raw.accepts[0])?.outputSchema);
  const type = raw.type ?? (input?.type === 'mcp' ? 'mcp' : 'http');
  const toolName = type === 'mcp' && typeof input?.toolName === 'string' ? input.toolName.slice(0, 128) : null;
  const firstRaw = record(raw.accepts[0]);
  const description = stringOf(raw.description) ?? stringOf(firstRaw?.description) ?? stringOf(input?.description) ?? '';
  const inputSchema = bounded(type === 'mcp' ? input?.inputSchema : record(record(bazaar?.schema)?.properties)?.input ?? v1Output?.input);
  const outputSchema = bounded(output?.schema ?? v1Output?.output);
  const hasOutputExample = output?.example !== undefined && !isEmptyObject(output.example);
  const usd = accepts.map((a) => a.priceUsd).filter((p): p is number => p !== null);
  const quality = record(raw.quality) ?? record(record(raw.metadata)?.quality);
  const metadata = record(raw.metadata);
  const calls30d = count(quality?.l30DaysTotalCalls ?? metadata?.calls30d ?? metadata?.totalCalls);
  const payers30d = count(quality?.l30DaysUniquePayers ?? quality?.l30DaysTotalUniquePayers ?? metadata?.payers30d);
  const method = typeof input?.method === 'string' ? input.method.slice(0, 8).toUpperCase() : null;
  const tags = Array.isArray(raw.tags) ? raw.tags.filter((t): t is string => typeof t === 'string').slice(0, 5).map((t) => t.slice(0, 32)) : [];
  const listing: Omit<Listing, 'category'> = {
    key: toolName ? `${raw.resource}#${toolName}` : raw.resource,
    resource: raw.resource,
    type,
    toolName,
    method,
    x402Version: raw.x402Version,
    source,
    description: description.slice(0, MAX_TEXT),
    serviceName: stringOf(raw.serviceName)?.slice(0, 64) ?? null,
    tags,
    accepts,
    payTo: accepts[0]!.payTo,
    network: accepts[0]!.network,
    priceUsd: usd.length > 0 ? Math.min(...usd) : null,
    inputSchema,
    outputSchema,
    hasOutputExample,
    lastUpdated: isoTime(raw.lastUpdated),
    calls30d,
    payers30d,
    lastCalledAt: isoTime(quality?.lastCalledAt),
  };
  return { listing: { ...listing, category: classify(listing) } };
}

function normalizeAccept(entry: unknown): ListingAccept | undefined {
  const parsed = RawAccept.safeParse(entry);
  if (!parsed.success) return undefined;
  const a = parsed.data;
  const amountRaw = a.amount ?? a.maxAmountRequired;
  const amount = typeof amountRaw === 'number' ? (Number.isSafeInteger(amountRaw) && amountRaw >= 0 ? String(amountRaw) : undefined) : amountRaw;
  if (amount === undefined || !/^\d{1,40}$/.test(amount)) return undefined;
  const network = V1_NETWORKS[a.network] ?? a.network;
  if (!/^[a-z0-9-]{3,8}:[A-Za-z0-9-_]{1,64}$/.test(network)) return undefined;
  const evm = network.startsWith('eip155:');
  const asset = evm ? (a.asset ?? '').toLowerCase() : (a.asset ?? '');
  const extraName = stringOf(record(a.extra)?.name);
  const usd = (USDC[network] !== undefined && USDC[network] === asset) || extraName === 'USD Coin' || extraName === 'USDC';
  return {
    scheme: a.scheme,
    network,
    asset,
    payTo: evm ? a.payTo.toLowerCase() : a.payTo,
    amount: BigInt(amount).toString(),
    priceUsd: usd ? Number(amount) / 1e6 : null,
  };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function isoTime(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 64) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

function isEmptyObject(value: unknown): boolean {
  return record(value) !== undefined && Object.keys(value as object).length === 0;
}

/** A schema kept only when small enough; a huge one is dropped (counted as not published). */
function bounded(schema: unknown): unknown {
  if (schema === undefined || schema === null) return null;
  const json = JSON.stringify(schema);
  return json.length <= MAX_SCHEMA_CHARS ? schema : null;
}
