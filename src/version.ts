import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.ts';

/** The package version, published in discovery documents. */
export const PACKAGE_VERSION: string = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Version of the MCP tool manifest (names, schemas, prices); the MCP server and llms.txt both state it. */
export const MCP_MANIFEST_VERSION = '1.1.0';
