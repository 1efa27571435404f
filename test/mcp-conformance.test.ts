import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RunningService } from '../src/runtime.ts';
import { useTestService } from './helpers/service.ts';

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in devDependencies)
 * run against the real service's `/mcp`, every server scenario of the suite at once.
 *
 * Scenarios that apply to percall (a stateless, tools-only server whose tools are its paid catalogue)
 * must pass with no failure and no warning. The others are the suite's expected failures, each with
 * its reason; the suite itself fails the run if one of them starts passing (stale baseline) or if a
 * scenario fails that is in neither list.
 */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

const FIXTURE_TOOLS = 'calls a fixture tool (test_simple_text, test_image_content, …) that only the SDKs’ “everything” test servers have; our tools are the catalogue, tested in mcp.test.ts';
const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level': 'no `logging` capability: the server sends no log notifications',
  'completion-complete': 'no prompts or resource templates, so nothing to complete',
  'tools-call-simple-text': FIXTURE_TOOLS,
  'tools-call-image': FIXTURE_TOOLS,
  'tools-call-audio': FIXTURE_TOOLS,
  'tools-call-embedded-resource': FIXTURE_TOOLS,
  'tools-call-mixed-content': FIXTURE_TOOLS,
  'tools-call-with-logging': FIXTURE_TOOLS,
  'tools-call-error': FIXTURE_TOOLS,
  'tools-call-with-progress': FIXTURE_TOOLS,
  'tools-call-sampling': `${FIXTURE_TOOLS}; and a stateless server makes no server-to-client requests`,
  'tools-call-elicitation': `${FIXTURE_TOOLS}; and a stateless server makes no server-to-client requests`,
  'json-schema-2020-12': 'calls the fixture tool json_schema_2020_12_tool',
  'elicitation-sep1034-defaults': 'elicitation is a server-to-client request: a stateless server answering in JSON makes none',
  'elicitation-sep1330-enums': 'elicitation is a server-to-client request: a stateless server answering in JSON makes none',
  'server-sse-polling': 'needs a session and SSE streams (and the fixture tool test_reconnection); the server is stateless and answers in JSON (warnings only)',
  'server-sse-multiple-streams': 'needs a session id; the server is stateless (warning only)',
  'resources-list': 'no resources',
  'resources-read-text': 'no resources',
  'resources-read-binary': 'no resources',
  'resources-templates-read': 'no resources',
  'resources-subscribe': 'no resources',
  'resources-unsubscribe': 'no resources',
  'prompts-list': 'no prompts',
  'prompts-get-simple': 'no prompts',
  'prompts-get-with-args': 'no prompts',
  'prompts-get-embedded-resource': 'no prompts',
  'prompts-get-with-image': 'no prompts',
};

const CLI = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

/**
 * The suite is built for Node 20 but imports `globSync` from `fs` (Node 22+), used only by its
 * `tier-check` command. On Node 20 this loader hook gives the suite's own `fs` imports a stand-in
 * `globSync`; nothing else changes. On Node 22 and later the suite runs as published.
 */
const FS_SHIM = `import fs from 'node:fs'; export * from 'node:fs'; export default fs; export function globSync() { throw new Error('fs.globSync needs Node 22'); }`;
const HOOKS = `export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: ${JSON.stringify(`data:text/javascript,${encodeURIComponent(FS_SHIM)}`)}, shortCircuit: true };
  }
  return next(specifier, context);
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;
const NODE_ARGS = Number(process.versions.node.split('.')[0]) >= 22 ? [] : ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
}

function runSuite(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...NODE_ARGS, CLI, ...args], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}\n${stderr}` });
    });
  });
}

describe('official MCP conformance suite against /mcp', () => {
  let service: RunningService;
  useTestService((_c, s) => (service = s));

  it('passes every scenario that applies to a stateless tools-only server, DNS-rebinding protection included', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'percall-conformance-'));
    try {
      const baseline = join(dir, 'expected-failures.yml');
      await writeFile(baseline, `server:\n${Object.keys(NOT_APPLICABLE).map((s) => `  - ${s}\n`).join('')}`);
      // The DNS-rebinding scenario needs a loopback URL: the test service listens on 127.0.0.1.
      const url = `${service.localUrl}/mcp`;
      expect(new URL(url).hostname).toBe('127.0.0.1');
      const run = await runSuite(['server', '--url', url, '--suite', 'all', '--expected-failures', baseline, '-o', join(dir, 'results')]);

      const results = new Map<string, Check[]>();
      for (const entry of await readdir(join(dir, 'results'))) {
        const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(entry)?.[1];
        if (scenario) results.set(scenario, JSON.parse(await readFile(join(dir, 'results', entry, 'checks.json'), 'utf8')) as Check[]);
      }
      // Every scenario of the pinned suite is classified here, so a new one is noticed on upgrade.
      expect([...results.keys()].sort()).toEqual([...APPLICABLE, ...Object.keys(NOT_APPLICABLE)].sort());
      for (const scenario of APPLICABLE) {
        const checks = results.get(scenario)!;
        const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ''}`);
        expect(bad, scenario).toEqual([]);
        expect(checks.some((c) => c.status === 'SUCCESS'), scenario).toBe(true);
      }
      expect(results.get('dns-rebinding-protection')!.map((c) => [c.id, c.status])).toEqual([
        ['localhost-host-rebinding-rejected', 'SUCCESS'],
        ['localhost-host-valid-accepted', 'SUCCESS'],
      ]);
      // The suite's own verdict against the baseline: no unexpected failure, no stale expected failure.
      expect(run.code, run.output.slice(-3000)).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
