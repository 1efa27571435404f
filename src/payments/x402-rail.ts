import { x402ResourceServer, type FacilitatorClient } from '@x402/core/server';
import type { Network, PaymentPayload, PaymentRequired, PaymentRequirements, ResourceInfo } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { UptoEvmScheme } from '@x402/evm/upto/server';
import { ExactSvmScheme } from '@x402/svm/exact/server';
import type { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/server';
import { BATCH_SCHEME } from './payloads/index.ts';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import type { AvailableProduct, NetworkFamily, Product, Surface } from '../catalogue/types.ts';
import { priceFor } from '../catalogue/index.ts';
import { priceVariants } from '../products/kit/price-by-input.ts';
import { inputJsonSchema, outputJsonSchema } from '../catalogue/json-schema.ts';
import { atomicToUsd, usdToAtomic } from '../money.ts';

/** One way to pay over x402: USDC on one network, paid to one recipient. */
export interface PaymentOffer {
  family: NetworkFamily;
  network: Network;
  /** Token contract (EVM) or mint (Solana) of USDC. */
  asset: string;
  /** EIP-712 domain of an EVM token, which the client signs against; absent on Solana. */
  assetName?: string;
  assetVersion?: string;
  payTo: string;
  maxTimeoutSeconds: number;
  /**
   * The smallest amount (atomic units) the configured facilitator settles on this network. A route
   * priced below it does not offer this network, and the discovery documents say why.
   */
  minimumAmount: bigint;
}

/** A network a product does not offer although the instance is configured for it, and why. */
export interface ExcludedOffer {
  network: string;
  scheme: string;
  reason: 'below_network_minimum' | 'scheme_not_supported_by_facilitator';
  detail: string;
}

interface Quote {
  accepts: PaymentRequirements[];
  excluded: ExcludedOffer[];
  extensions: Record<string, unknown>;
  description: string;
}

/**
 * The x402 rail over the official resource server. Requirements and bazaar blocks are computed
 * once per product and surface at start-up (prices are fixed), so a 402 costs no async work.
 */
export class X402Rail {
  readonly server: x402ResourceServer;
  private readonly quotes = new Map<string, Quote>();
  /** Encoded error-free quotes by product, surface and resource URL: a 402 is then two cached strings. */
  private readonly encoded = new Map<string, EncodedQuote>();
  /** Keys of quotes made for dynamic prices, oldest first (see prepare). */
  private readonly dynamicKeys: string[] = [];

  constructor(
    facilitator: FacilitatorClient | FacilitatorClient[],
    private readonly offers: PaymentOffer[],
    private readonly serviceName: string,
    /** batch-settlement channels, on the EVM network they are offered on (see src/payments/batch). */
    private readonly batch?: { network: Network; scheme: BatchSettlementEvmScheme },
  ) {
    this.server = new x402ResourceServer(facilitator);
    for (const offer of offers) {
      if (offer.family === 'evm') {
        this.server.register(offer.network, new ExactEvmScheme());
        this.server.register(offer.network, new UptoEvmScheme());
        if (batch?.network === offer.network) this.server.register(offer.network, batch.scheme);
      } else {
        this.server.register(offer.network, new ExactSvmScheme());
      }
    }
  }

  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  /** True once the facilitator answered and every product is priced; until then paid calls get 503. */
  get ready(): boolean {
    return this.initialized;
  }

  private initialized = false;

  /**
   * Tries to initialize once; if the facilitator cannot be reached the service still starts (free
   * endpoints work, paid ones answer 503 with Retry-After) and initialization is retried with backoff.
   */
  async start(products: readonly Product[], onRetry: (error: unknown, delayMs: number) => void): Promise<void> {
    let delay = 1000;
    const attempt = async (): Promise<void> => {
      try {
        await this.initialize(products);
      } catch (error) {
        if (this.stopped) return;
        onRetry(error, delay);
        this.retryTimer = setTimeout(() => void attempt(), delay);
        this.retryTimer.unref();
        delay = Math.min(delay * 2, 30_000);
      }
    };
    await attempt();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
  }

  /** Fetches the facilitator's supported kinds, then prices every available product. */
  async initialize(products: readonly Product[]): Promise<void> {
    await this.server.initialize();
    const quotes = new Map<string, Quote>();
    for (const declared of products) {
      if (declared.status !== 'available') continue;
      // A product priced by its input has a quote per price (kit/price-by-input.ts).
      for (const product of [declared, ...priceVariants(declared)]) {
        for (const surface of ['http', 'mcp'] as const) {
          if (!product[surface]) continue;
          quotes.set(quoteKey(product, surface), await this.buildQuote(product, surface));
        }
      }
    }
    for (const [key, quote] of quotes) this.quotes.set(key, quote);
    this.initialized = true;
  }

  /**
   * The `accepts` of one product on one surface, in order of preference: per configured network,
   * `upto` up to the maximum authorization where the product is metered and the network has it
   * (EVM: Permit2), then `exact` at the price, then `batch-settlement` where channels are offered
   * (after `exact`, so clients that do not know it pay as before; a metered product's voucher
   * authorises the maximum and is charged the actual cost). Networks whose minimum is above the price, or whose
   * scheme the facilitator does not support, are left out and listed in `excluded`.
   */
  private async buildQuote(product: AvailableProduct, surface: Surface): Promise<Quote> {
    const price = usdToAtomic(priceFor(product, surface));
    const accepts: PaymentRequirements[] = [];
    const excluded: ExcludedOffer[] = [];
    for (const offer of this.offers) {
      if (!product.rails.x402.includes(offer.family)) continue;
      if (price < offer.minimumAmount) {
        excluded.push({
          network: offer.network,
          scheme: 'exact',
          reason: 'below_network_minimum',
          detail: `the price ${atomicToUsd(price)} USD is below the ${atomicToUsd(offer.minimumAmount)} USD the facilitator settles on ${offer.network}`,
        });
        continue;
      }
      const kinds: { scheme: 'exact' | 'upto' | typeof BATCH_SCHEME; amount: bigint }[] = [];
      const maximum = product.mode.kind === 'upto' ? usdToAtomic(product.mode.maximumAuthorization) : price;
      if (product.mode.kind === 'upto' && offer.family === 'evm') kinds.push({ scheme: 'upto', amount: maximum });
      kinds.push({ scheme: 'exact', amount: price });
      if (this.batch?.network === offer.network) kinds.push({ scheme: BATCH_SCHEME, amount: maximum });
      for (const { scheme, amount } of kinds) {
        if (!this.server.getSupportedKind(2, offer.network, scheme)) {
          excluded.push({ network: offer.network, scheme, reason: 'scheme_not_supported_by_facilitator', detail: `the facilitator does not settle x402 ${scheme} on ${offer.network}` });
          continue;
        }
        const extra = offer.assetName ? { name: offer.assetName, version: offer.assetVersion } : undefined;
        accepts.push(
          ...(await this.server.buildPaymentRequirements({
            scheme,
            network: offer.network,
            payTo: offer.payTo,
            price: { amount: amount.toString(), asset: offer.asset, ...(extra ? { extra } : {}) },
            maxTimeoutSeconds: offer.maxTimeoutSeconds,
          })),
        );
      }
    }
    // payment-identifier: a client may send an idempotency id with its payment (see gate.ts, `idempotent`).
    const extensions = { ...bazaarExtension(product, surface), [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };
    return { accepts, excluded, extensions, description: product.description };
  }

  /**
   * Prices a variant made at call time (a product's dynamic price, kit/price-by-input.ts `pricedAt`)
   * on its surfaces, once; the most recently made MAX_DYNAMIC_QUOTES are kept.
   */
  async prepare(product: AvailableProduct): Promise<void> {
    if (product.priceTier === undefined) return;
    for (const surface of ['http', 'mcp'] as const) {
      if (!product[surface]) continue;
      const key = quoteKey(product, surface);
      if (this.quotes.has(key)) continue;
      this.quotes.set(key, await this.buildQuote(product, surface));
      this.dynamicKeys.push(key);
      if (this.dynamicKeys.length > MAX_DYNAMIC_QUOTES) this.quotes.delete(this.dynamicKeys.shift()!);
    }
  }

  /** Configured networks this product does not offer on this surface, with the reason. */
  excludedFor(product: AvailableProduct, surface: Surface): ExcludedOffer[] {
    return this.quote(product, surface).excluded;
  }

  requirementsFor(product: AvailableProduct, surface: Surface): PaymentRequirements[] {
    return this.quote(product, surface).accepts;
  }

  /** The `PaymentRequired` object of a 402: the same object goes in the header and the body. */
  paymentRequired(product: AvailableProduct, surface: Surface, url: string, error?: string): PaymentRequired {
    const quote = this.quote(product, surface);
    const resource: ResourceInfo = {
      url,
      description: quote.description,
      mimeType: 'application/json',
      serviceName: this.serviceName,
      tags: [product.category],
    };
    return { x402Version: 2, ...(error ? { error } : {}), resource, accepts: quote.accepts, extensions: quote.extensions };
  }

  /** The 402 quote ready for the wire: the PAYMENT-REQUIRED header value and the identical JSON body. */
  encodedPaymentRequired(product: AvailableProduct, surface: Surface, url: string, error?: string): EncodedQuote {
    if (error) return encodeQuote(this.paymentRequired(product, surface, url, error));
    const key = `${quoteKey(product, surface)} ${url}`;
    let quote = this.encoded.get(key);
    if (!quote) {
      // The URL's origin comes from the request's Host header: bound the cache against arbitrary hosts.
      if (this.encoded.size >= MAX_ENCODED_QUOTES) this.encoded.clear();
      quote = encodeQuote(this.paymentRequired(product, surface, url));
      this.encoded.set(key, quote);
    }
    return quote;
  }

  /** The accepted requirement the payload commits to, if it is one we offered for this product. */
  match(product: AvailableProduct, surface: Surface, payload: PaymentPayload): PaymentRequirements | undefined {
    return this.server.findMatchingRequirements(this.quote(product, surface).accepts, payload);
  }

  private quote(product: AvailableProduct, surface: Surface): Quote {
    const quote = this.quotes.get(quoteKey(product, surface));
    if (!quote) throw new Error(`no x402 quote for ${product.id} on ${surface}: rail not initialized`);
    return quote;
  }
}

export interface EncodedQuote {
  header: string;
  body: string;
  /** The quote's `error`, when it answers a failed payment. */
  error?: string;
}

const MAX_ENCODED_QUOTES = 512;
const MAX_DYNAMIC_QUOTES = 512;

/**
 * Node's fetch (undici) takes at most 16 KB of response headers in all. A quote whose header would
 * be larger than this leaves the JSON Schema of its output example out of the header's bazaar block
 * (the body, the same object otherwise, keeps it): products with rich outputs stay payable.
 */
const HEADER_BUDGET = 12 * 1024;

/** Base64 of the UTF-8 JSON, byte for byte what `encodePaymentRequiredHeader` produces, without its per-byte loop. */
export function encodeQuote(quote: PaymentRequired): EncodedQuote {
  const body = JSON.stringify(quote);
  let header = Buffer.from(body, 'utf8').toString('base64');
  if (header.length > HEADER_BUDGET) header = Buffer.from(JSON.stringify(withoutOutputSchema(quote)), 'utf8').toString('base64');
  return { header, body, ...(quote.error ? { error: quote.error } : {}) };
}

/** The quote with its bazaar output example's schema reduced to `{ type: 'object' }`. */
function withoutOutputSchema(quote: PaymentRequired): PaymentRequired {
  const copy = JSON.parse(JSON.stringify(quote)) as PaymentRequired;
  const output = (copy.extensions?.bazaar as { schema?: { properties?: { output?: { properties?: { example?: unknown } } } } } | undefined)?.schema?.properties?.output?.properties;
  if (output?.example) output.example = { type: 'object' };
  return copy;
}

function quoteKey(product: Product, surface: Surface): string {
  return product.priceTier === undefined ? `${surface}:${product.id}` : `${surface}:${product.id}:${product.priceTier}`;
}

/** The bazaar discovery block (x402 `extensions.bazaar`): input schema and output example. */
function bazaarExtension(product: AvailableProduct, surface: Surface): Record<string, unknown> {
  const inputSchema = inputJsonSchema(product);
  const outputSchema = outputJsonSchema(product);
  const output = { example: product.outputExample ?? {}, ...(outputSchema ? { schema: outputSchema } : {}) };
  if (surface === 'mcp' && product.mcp) {
    return declareDiscoveryExtension({
      toolName: product.mcp.tool,
      description: product.description,
      transport: 'streamable-http',
      inputSchema,
      ...(product.inputExample ? { example: product.inputExample } : {}),
      output,
    } as never);
  }
  const method = product.http!.method;
  if (method === 'GET') {
    return declareDiscoveryExtension({ method, inputSchema, input: product.inputExample ?? {}, output } as never);
  }
  return declareDiscoveryExtension({ method, bodyType: 'json', inputSchema, input: product.inputExample ?? {}, output } as never);
}
