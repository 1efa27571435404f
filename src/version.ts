import { createRequire } from 'node:module';

/** The package version, published in discovery documents. */
export const PACKAGE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/** Version of the MCP tool manifest (names, schemas, prices); the MCP server and llms.txt both state it. */
export const MCP_MANIFEST_VERSION = '1.1.0';
