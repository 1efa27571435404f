import type { Domain, Product } from '../products/kit/index.ts';

/** One product as the committed catalogue snapshot records it: what a caller sees and pays. */
export interface ProductSnapshot {
  id: string;
  domain: string;
  status: Product['status'];
  http?: string;
  mcp?: string;
  mode: string;
  rails: string;
  requires?: string[];
  requiresProof?: true;
}

/**
 * The catalogue as data for review: routes (`METHOD path price`), tools (`tool price`), mode and
 * rails per product, in catalogue order. test/catalogue.snapshot.json keeps it; a change there is a
 * change of what is sold.
 */
export function catalogueSnapshot(domains: readonly Domain[]): ProductSnapshot[] {
  return domains.flatMap((domain) =>
    domain.products.map((p) => ({
      id: p.id,
      domain: domain.name,
      status: p.status,
      ...(p.http ? { http: `${p.http.method} ${p.http.path} ${p.http.price}` } : {}),
      ...(p.mcp ? { mcp: `${p.mcp.tool} ${p.mcp.price}` } : {}),
      mode: p.mode.kind === 'upto' ? `upto ${p.mode.maximumAuthorization}` : 'fixed',
      rails: railsOf(p),
      ...(p.requires?.length ? { requires: [...p.requires] } : {}),
      ...(p.requiresProof ? { requiresProof: true as const } : {}),
    })),
  );
}

/** `x402 evm,solana` or `x402 evm,solana + mpp`. */
export function railsOf(product: Product): string {
  return `x402 ${product.rails.x402.join(',')}${product.rails.mpp ? ' + mpp' : ''}`;
}
