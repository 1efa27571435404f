import { createRequire } from 'node:module';

/** The package version, published in discovery documents. */
export const PACKAGE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
