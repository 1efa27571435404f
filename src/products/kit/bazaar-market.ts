/**
 * The Bazaar snapshots as products reach them (src/bazaar/ takes them, the store keeps them):
 * complete daily snapshots of the x402 discovery lists, newest first, and their listings. Products
 * see only this interface.
 */

/** One way to pay for a listing, normalized across x402 v1 (`maxAmountRequired`, network names) and v2. */
export interface ListingAccept {
  scheme: string;
  /** CAIP-2 (`base` in v1 lists is `eip155:8453`). */
  network: string;
  /** Token contract or mint; EVM addresses lowercase. */
  asset: string;
  /** EVM addresses lowercase. */
  payTo: string;
  /** Atomic units, a decimal string. */
  amount: string;
  /** USD per call when the asset is a known 6-decimal USD stablecoin (USDC), else null. */
  priceUsd: number | null;
}

/** One listing of a snapshot (src/bazaar/listing.ts makes it from a discovery item). */
export interface Listing {
  /** Identity within a snapshot: the resource URL, plus `#toolName` for an MCP tool (the spec keys MCP entries so). */
  key: string;
  resource: string;
  /** `http` or `mcp` (whatever the list says, bounded). */
  type: string;
  toolName: string | null;
  method: string | null;
  x402Version: number;
  /** The discovery list it came from. */
  source: string;
  description: string;
  serviceName: string | null;
  tags: string[];
  accepts: ListingAccept[];
  /** Pay-to of the first accept (the one a client takes by default). */
  payTo: string;
  /** Network of the first accept. */
  network: string;
  /** Cheapest USD price among the accepts, null when no accept is in a known USD stablecoin. */
  priceUsd: number | null;
  /** The bazaar input schema (`extensions.bazaar.schema.properties.input`, or the MCP `inputSchema`), when published. */
  inputSchema: unknown;
  /** The output schema when published (`info.output.schema`, or v1 `outputSchema.output`). */
  outputSchema: unknown;
  /** Whether the listing publishes an output example. */
  hasOutputExample: boolean;
  lastUpdated: string | null;
  /** Calls in the last 30 days as the list reports them (CDP: `quality.l30DaysTotalCalls`), else null. */
  calls30d: number | null;
  /** Unique payers in the last 30 days as the list reports them, else null. */
  payers30d: number | null;
  /** Last call as the list reports it, else null. */
  lastCalledAt: string | null;
  /** Derived category: one of the 9 of src/bazaar/classify.ts. */
  category: string;
}

/** One complete snapshot. */
export interface BazaarSnapshot {
  id: number;
  /** The UTC day it stands for, `YYYY-MM-DD`. */
  day: string;
  /** When it was completed. */
  completedAt: string;
  /** The discovery lists it read (URLs, or `self`: this instance's own catalogue). */
  sources: string[];
  listings: number;
  /** Items of the lists that were malformed and skipped. */
  malformed: number;
  /** Items listed more than once (the newest `lastUpdated` kept). */
  duplicates: number;
}

export interface BazaarMarket {
  /** Complete snapshots, newest first, at most `limit`. */
  snapshots(limit: number): Promise<BazaarSnapshot[]>;
  /** The listings of a complete snapshot, ordered by key. */
  listings(snapshotId: number): Promise<Listing[]>;
  /** One listing (by key) in every complete snapshot that has it, oldest first. */
  history(key: string): Promise<{ snapshotId: number; day: string; listing: Listing }[]>;
}
