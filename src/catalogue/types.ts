// The product types and builders live in the product kit (src/products/kit); this path stays for
// the code that imports them from the catalogue.
export type {
  Surface,
  NetworkFamily,
  ProductCategory,
  PriceMode,
  HttpSurface,
  McpSurface,
  Rails,
  ProductContext,
  UpstreamProvider,
  FreeTier,
  AvailableProduct,
  UnavailableProduct,
  Product,
} from '../products/kit/index.ts';
export { ProductInputError, UpstreamError, available, unavailable, X402_BOTH, X402_AND_MPP, FIXED } from '../products/kit/index.ts';
