import { describe, expect, it } from 'vitest';
import { request } from 'node:http';
import type { RunningService } from '../src/runtime.ts';
import { useTestService } from './helpers/service.ts';

let service: RunningService;
useTestService((_c, s) => (service = s));

const HUGE = 100 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 0x61);

/**
 * Sends a 100 MB body to `path` and returns the status the server answered with. `declared` sends a
 * Content-Length, otherwise the body is chunked. Stops writing as soon as the server answers or
 * closes, as a real client would.
 */
function sendHuge(base: string, path: string, declared: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    let answered: number | undefined;
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': path.startsWith('/oauth2') ? 'application/x-www-form-urlencoded' : 'application/json', ...(declared ? { 'content-length': String(HUGE) } : {}) },
    });
    req.on('response', (res) => {
      answered = res.statusCode;
      res.resume();
      res.on('end', () => resolve(answered!));
    });
    req.on('error', (error) => (answered === undefined ? reject(error) : resolve(answered)));
    let sent = 0;
    const pump = (): void => {
      while (answered === undefined && !req.destroyed && sent < HUGE) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once('drain', pump);
      }
      if (sent >= HUGE) req.end();
    };
    pump();
  });
}

/** Every route that takes a body: all POST routes and the paid and MCP routes registered for every method. */
function postRoutes(): string[] {
  const paths = service.percall.app.routes.filter((r) => r.method === 'POST' || r.method === 'ALL').map((r) => r.path);
  return [...new Set(paths)].filter((p) => p !== '/*' && !p.includes(':'));
}

describe('every request body is bounded (MAX_BODY_BYTES)', () => {
  it('a 100 MB body on every POST route gets 413 problem+json, and memory stays flat', async () => {
    const routes = postRoutes();
    expect(routes).toEqual(expect.arrayContaining(['/agent/identity', '/oauth2/token', '/oauth2/revoke', '/mcp', '/api/v1/orders', '/api/v1/paid/echo']));
    const rssBefore = process.memoryUsage().rss;
    for (const path of routes) {
      for (const declared of [true, false]) {
        expect(await sendHuge(service.url, path, declared), `${path} (${declared ? 'content-length' : 'chunked'})`).toBe(413);
      }
    }
    // The service runs in this process: 100 MB held by any route would show here many times over.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it('the 413 is a problem naming the body, and small bodies still pass', async () => {
    const response = await fetch(`${service.url}/agent/identity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(70_000) });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(((await response.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe('body');
    const ok = await fetch(`${service.url}/agent/identity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'anonymous' }) });
    expect(ok.status).toBe(201);
  });
});
