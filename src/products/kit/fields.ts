/**
 * Input fields several products share, so a field means the same thing (and publishes the same
 * JSON Schema) wherever it appears. Each is a function: zod schemas are immutable, but `.describe()`
 * and `.optional()` read better on a fresh one.
 */
import { z } from 'zod';
import { isAddress } from '@solana/kit';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ToolAnnotations } from './types.ts';

// ---- MCP tool annotations used across domains ----

/** Computes on what the caller supplies (or our own data); reaches nothing outside. */
export const READ = { readOnlyHint: true } as const satisfies ToolAnnotations;
/** Reads the outside world (a caller's URL, a chain, an upstream) without changing it. */
export const READ_EXTERNAL = { readOnlyHint: true, openWorldHint: true } as const satisfies ToolAnnotations;
/** Reaches the outside world and may act there (a request with the caller's method, a browser click). */
export const OPEN_WORLD = { openWorldHint: true } as const satisfies ToolAnnotations;

// ---- Chain fields ----

/** `0x` + 40 hex characters: the shape of an EVM address. */
export const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** An EVM address: `0x` + 40 hex characters. */
export const evmAddress = () => z.string().regex(EVM_ADDRESS);
/** An EVM transaction hash: `0x` + 64 hex characters. */
export const evmTxHash = () => z.string().regex(/^0x[0-9a-fA-F]{64}$/);
/** A Solana account address (base58, 32 to 44 characters, decoding to 32 bytes). */
export const solanaAddress = () =>
  z
    .string()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
    .refine((value): boolean => isAddress(value), 'not a Solana address (base58 of 32 bytes)');
/** EVM chains of the wallet routes. */
export const EVM_CHAINS = ['ethereum', 'base', 'arbitrum', 'optimism', 'polygon'] as const;
export const evmChain = () => z.enum(EVM_CHAINS);

// ---- Money ----

/** A USD amount as a decimal string with at most 6 decimals (USDC's precision), e.g. "0.05". */
export const usdAmount = () => z.string().regex(/^\d+(\.\d{1,6})?$/);

// ---- URLs and schemas the caller gives ----

const withoutCredentials = (url: string) => {
  try {
    const parsed = new URL(url);
    return !parsed.username && !parsed.password;
  } catch {
    return true; // not a URL: the format check says so
  }
};

/**
 * A URL the safe fetcher takes: http or https (https only when `httpsOnly`), no credentials. Checked
 * before payment, so the unpaid 402 already names the problem; the address a name resolves to can
 * only be checked when the call runs (a refused or unresolvable target is then 422, not charged).
 */
export const fetchableUrl = (httpsOnly = false) =>
  z
    .url({ protocol: httpsOnly ? /^https$/ : /^https?$/, error: httpsOnly ? 'must be an https URL' : 'must be an http or https URL' })
    .refine(withoutCredentials, 'URLs with credentials (user:password@) are refused');
export const httpsUrl = () => fetchableUrl(true);

const metaSchema = addFormats.default(new Ajv2020({ strict: false, logger: false }));
/**
 * A JSON Schema (draft 2020-12) object, checked against the meta-schema before payment; the products
 * compile it only when the call runs (a schema that still does not compile is then 400, not charged).
 */
export const jsonSchemaObject = () =>
  z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
    let problem: string | undefined;
    try {
      if (!metaSchema.validateSchema(schema)) problem = metaSchema.errorsText(metaSchema.errors, { dataVar: 'schema' });
    } catch (error) {
      problem = (error as Error).message;
    }
    if (problem) ctx.addIssue({ code: 'custom', message: `not a valid JSON Schema (2020-12): ${problem.slice(0, 300)}` });
  });
