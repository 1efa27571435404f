// The product list lives in the registry; this path stays for the code that imports it.
export { ALL_PRODUCTS } from './registry.ts';
