import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildEmbeddedTemplate } from '../src/store/embedded.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated embedded database every test store starts from (PGlite's initdb once per run, not per store). */
    storeTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'percall-store-template-'));
  const path = join(dir, 'store.tar');
  await buildEmbeddedTemplate(path);
  project.provide('storeTemplate', path);
  return () => rm(dir, { recursive: true, force: true });
}
