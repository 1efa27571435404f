// Ranking lives in the product kit, shared by the catalogue's search (MCP search_tools) and the
// routing products.
export { rankProducts, type RankedProduct } from '../products/kit/index.ts';
