// Compiles src/ into one JavaScript bundle under dist/ with esbuild, so the service runs compiled
// code instead of loading TypeScript through a loader at every start (start-up and memory; see the
// README's "Running from source"). Rebuilt only when a source is newer than the last build; several
// processes starting at once each build into their own directory and publish it atomically.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const pointer = join(dist, 'current.json');
/** Builds kept besides the current one: a process still running an older one may load its lazy chunks. */
const KEEP_BUILDS = 3;

/** Newest modification time of the files a build is made from. */
function newestSource() {
  // This file counts as a source too: a change to how the bundle is made rebuilds it.
  let newest = Math.max(statSync(join(root, 'package.json')).mtimeMs, statSync(fileURLToPath(import.meta.url)).mtimeMs);
  for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const mtime = statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

function currentBuild() {
  try {
    return JSON.parse(readFileSync(pointer, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The entry module of an up-to-date build of src/main.ts, building one first if needed. */
export async function ensureBuilt() {
  const sourcesAt = newestSource();
  const current = currentBuild();
  if (current && current.sourcesAt >= sourcesAt) return join(dist, current.dir, 'main.js');

  const { build, stop } = await import('esbuild');
  const dir = `build-${Date.now()}-${process.pid}`;
  await build({
    // The index worker (src/index/worker.ts) runs in a child process of its own: a second entry, index/worker.js.
    entryPoints: [join(root, 'src', 'main.ts'), join(root, 'src', 'index', 'worker.ts')],
    outdir: join(dist, dir),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'error',
    plugins: [viemChainsInBundle],
    // esbuild's service process would otherwise live as long as the service (about 50 MB).
  }).finally(() => stop());
  mkdirSync(dist, { recursive: true });
  const tmp = `${pointer}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ dir, sourcesAt }));
  renameSync(tmp, pointer);
  removeOldBuilds(dir);
  return join(dist, dir, 'main.js');
}

/**
 * `viem/chains` is one index of ~700 chain definitions, which Node cannot tree-shake when it loads the
 * package at run time (about 12 MB of idle memory for the five chains src/providers/chains.ts names).
 * Bundled, it keeps only those five, still viem's own definitions; viem's other entries stay external.
 */
const viemChainsInBundle = {
  name: 'viem-chains-in-bundle',
  setup(build) {
    build.onResolve({ filter: /^viem\/chains$/ }, () => ({ path: join(root, 'node_modules', 'viem', '_esm', 'chains', 'index.js') }));
  },
};

function removeOldBuilds(keep) {
  const builds = readdirSync(dist)
    .filter((name) => name.startsWith('build-') && name !== keep)
    .sort((a, b) => Number(b.split('-')[1]) - Number(a.split('-')[1]));
  for (const old of builds.slice(KEEP_BUILDS)) rmSync(join(dist, old), { recursive: true, force: true });
}
