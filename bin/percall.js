#!/usr/bin/env -S node --max-semi-space-size=4
// Entry point for `npm start` and `npx percall …`: runs the compiled bundle of src/ (bin/build.js
// rebuilds it when a source changed). PERCALL_FROM_SOURCE=1 loads the TypeScript through tsx instead.
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// The embedded store is PostgreSQL compiled to WebAssembly: compiling only the functions it calls,
// with V8's baseline compiler, keeps about 60 MB of machine code out of memory (README, "Memory").
setFlagsFromString('--wasm-lazy-compilation');
setFlagsFromString('--liftoff-only');
// The young generation's size can only be set when node starts: `npm start`, this file's first line and
// the bench start node with --max-semi-space-size=4 (16 MB by default: ~30 MB more idle RSS, README "Memory").

if (process.env.PERCALL_FROM_SOURCE === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
} else {
  const { ensureBuilt } = await import('./build.js');
  await import(pathToFileURL(await ensureBuilt()).href);
}
