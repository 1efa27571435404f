/**
 * The product builder. A product states only what differs from the defaults:
 *
 * | field         | default                     | override                               |
 * |---------------|-----------------------------|----------------------------------------|
 * | HTTP route    | `POST /api/v1/paid/<id>`    | `method: 'GET'`, `path`, `http: false`, |
 * |               |                             | `queryToo` (GET with query parameters too) |
 * | MCP tool      | snake_case(id)              | `tool`, `mcp: false`                   |
 * | price         | one price on both surfaces  | `price: { http, mcp }`                 |
 * | price mode    | fixed                       | `mode: upto('1.00')`                   |
 * | rails         | x402 on evm and solana      | `mpp: true` adds MPP                   |
 * | category      | the domain                  | `category`                             |
 * | output schema | published when declared     | `publishOutputSchema: false`           |
 *
 * `product()` declares one on sale (its run typed against its input and output schemas),
 * `planned()` one not built yet (501, left out of discovery); `domain()` files them under a domain.
 */
import { z } from 'zod';
import type {
  AvailableProduct,
  FreeTier,
  PriceMode,
  Product,
  ProductCategory,
  PrecheckContext,
  ProductContext,
  QuoteContext,
  ProductDeclaration,
  Rails,
  ToolAnnotations,
  UnavailableProduct,
  UpstreamProvider,
} from './types.ts';

export const PAID_PREFIX = '/api/v1/paid/';
export const FIXED: PriceMode = { kind: 'fixed' };
/** Default rails: x402 on Base and Solana. */
export const X402_BOTH: Rails = { x402: ['evm', 'solana'], mpp: false };
export const X402_AND_MPP: Rails = { x402: ['evm', 'solana'], mpp: true };

/** `upto` pricing: the caller authorizes up to `maximumAuthorization` USD and is charged the actual amount. */
export const upto = (maximumAuthorization: string): PriceMode => ({ kind: 'upto', maximumAuthorization });

/** The default tool name of a product id: `base-gas-price` → `base_gas_price`. */
export const snakeCase = (id: string): string => id.replaceAll('-', '_');

interface Spec {
  /** Stable id, kebab-case; the default path and tool name derive from it. */
  id: string;
  title: string;
  /** One or two sentences an agent reads to decide whether to call the product. */
  description: string;
  /** Default: the domain the product is filed under. */
  category?: ProductCategory;
  /** HTTP method; default POST. */
  method?: 'GET' | 'POST';
  /** A POST route that also takes GET with the same fields as query parameters. */
  queryToo?: true;
  /** Full HTTP path; default `/api/v1/paid/<id>`. */
  path?: string;
  /** `false`: not sold over HTTP (an MCP-only tool). */
  http?: false;
  /** MCP tool name; default snake_case(id). */
  tool?: string;
  /** `false`: not sold as an MCP tool. */
  mcp?: false;
  annotations?: ToolAnnotations;
  /** USD per call as a decimal string: one price for both surfaces, or one per surface. */
  price: string | { http: string; mcp: string };
  /** Default fixed. */
  mode?: PriceMode;
  /** MPP as a rail besides x402; default false. */
  mpp?: boolean;
  /** A valid input, published in discovery documents (GET routes: as query parameters). */
  inputExample: Record<string, unknown>;
  outputExample?: unknown;
  /** Whether `outputSchema` (the JSON Schema of `output`) is published; default true. */
  publishOutputSchema?: boolean;
  freeTier?: FreeTier;
  requiresProof?: boolean;
  requires?: UpstreamProvider[];
  freeDoors?: ProductDeclaration['freeDoors'];
  /** Bodies larger than MAX_BODY_BYTES this product takes (input files); default: MAX_BODY_BYTES. */
  maxInputBytes?: number;
  /** A price per value of one input field (one price for both surfaces, or one per surface); other values pay `price`. */
  priceByInput?: { field: string; prices: Record<string, string | { http: string; mcp: string }> };
}

/** A product on sale, before `domain()` files it: category may still be the domain's. */
export interface AvailableDraft<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType>
  extends Omit<AvailableProduct, 'category' | 'input' | 'output' | 'run'> {
  category?: ProductCategory;
  input: I;
  output: O;
  run(input: z.output<I>, ctx: ProductContext): Promise<z.infer<O>>;
  precheck?(input: z.output<I>, ctx: PrecheckContext): Promise<void>;
  dynamicPrice?(input: z.output<I>, ctx: QuoteContext): Promise<string>;
}

/** A planned product, before `domain()` files it. */
export interface PlannedDraft extends Omit<UnavailableProduct, 'category'> {
  category?: ProductCategory;
}

export type Draft = AvailableDraft | PlannedDraft;

/** A domain: its name is the default category of its products. */
export interface Domain {
  name: ProductCategory;
  products: Product[];
}

/** Declares a product on sale; `run` is typed against `input` and must return what `output` describes. */
export function product<I extends z.ZodType, O extends z.ZodType>(
  spec: Spec & {
    input: I;
    output: O;
    outputExample: unknown;
    run(input: z.output<I>, ctx: ProductContext): Promise<z.infer<O>>;
    /** Checks valid input against this instance before payment (see AvailableProduct.precheck). */
    precheck?(input: z.output<I>, ctx: PrecheckContext): Promise<void>;
    /** The price of this input now, when it depends on the world (see AvailableProduct.dynamicPrice). */
    dynamicPrice?(input: z.output<I>, ctx: QuoteContext): Promise<string>;
  },
): AvailableDraft<I, O> {
  const { run, output, precheck, dynamicPrice } = spec;
  return { ...declare(spec), output, status: 'available', run, ...(precheck ? { precheck } : {}), ...(dynamicPrice ? { dynamicPrice } : {}) } as AvailableDraft<I, O>;
}

/** Declares a product that is not built yet: its route answers 501 and discovery leaves it out. */
export function planned(spec: Spec & { input: z.ZodType; output?: z.ZodType; reason?: string }): PlannedDraft {
  return { ...declare(spec), ...(spec.output ? { output: spec.output } : {}), status: 'unavailable', reason: spec.reason ?? 'not implemented yet' };
}

/** Files drafts under a domain: a draft without its own category takes the domain's name. */
export function domain(name: ProductCategory, drafts: readonly Draft[]): Domain {
  return { name, products: drafts.map((draft) => ({ ...draft, category: draft.category ?? name }) as Product) };
}

function declare(spec: Spec & { input: z.ZodType; output?: z.ZodType }): Omit<ProductDeclaration, 'category' | 'output'> & { category?: ProductCategory } {
  if (spec.http === false && (spec.method || spec.path || spec.queryToo)) throw new Error(`${spec.id}: method, path or queryToo given, but not sold over HTTP`);
  if (spec.mcp === false && (spec.tool || spec.annotations)) throw new Error(`${spec.id}: tool or annotations given, but not sold as a tool`);
  if (spec.http === false && spec.mcp === false) throw new Error(`${spec.id}: sold on no surface`);
  const price = typeof spec.price === 'string' ? { http: spec.price, mcp: spec.price } : spec.price;
  const publish = spec.publishOutputSchema ?? true;
  return defined({
    id: spec.id,
    title: spec.title,
    description: spec.description,
    category: spec.category,
    http:
      spec.http === false
        ? undefined
        : { method: spec.method ?? 'POST', path: spec.path ?? PAID_PREFIX + spec.id, price: price.http, ...(spec.queryToo && spec.method !== 'GET' ? { queryToo: true as const } : {}) },
    mcp: spec.mcp === false ? undefined : { tool: spec.tool ?? snakeCase(spec.id), price: price.mcp, ...(spec.annotations ? { annotations: spec.annotations } : {}) },
    mode: spec.mode ?? FIXED,
    rails: spec.mpp ? X402_AND_MPP : X402_BOTH,
    input: spec.input,
    inputExample: spec.inputExample,
    outputSchema: spec.output && publish ? z.toJSONSchema(spec.output) : undefined,
    outputExample: spec.outputExample,
    freeTier: spec.freeTier,
    requiresProof: spec.requiresProof,
    requires: spec.requires,
    freeDoors: spec.freeDoors,
    maxInputBytes: spec.maxInputBytes,
    priceByInput: spec.priceByInput
      ? { field: spec.priceByInput.field, prices: Object.fromEntries(Object.entries(spec.priceByInput.prices).map(([k, v]) => [k, typeof v === 'string' ? { http: v, mcp: v } : v])) }
      : undefined,
  });
}

/** Leaves out the keys that are not set, as a hand-written declaration would. */
function defined<T extends Record<string, unknown>>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

// ---- The full form, for tests and one-off products that state every field ----

/**
 * Declares an available product with its run function typed against its input schema.
 * The catalogue stores products untyped; this keeps each declaration honest.
 */
export function available<S extends z.ZodType>(
  decl: Omit<ProductDeclaration, 'input'> & { input: S; run(input: z.output<S>, ctx: ProductContext): Promise<unknown> },
): AvailableProduct {
  return { ...decl, status: 'available', run: decl.run as AvailableProduct['run'] };
}

export function unavailable(decl: ProductDeclaration & { reason?: string }): UnavailableProduct {
  return { ...decl, status: 'unavailable', reason: decl.reason ?? 'not implemented yet' };
}
