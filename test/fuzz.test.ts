import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { createSIWxPayload, encodeSIWxHeader, type CompleteSIWxInfo, type SIWxExtension } from '@x402/extensions/sign-in-with-x';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { AvailableProduct, Product } from '../src/catalogue/types.ts';
import { createMppClient } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { MAX_INPUT_DEPTH } from '../src/http/input.ts';
import { usdToAtomic } from '../src/money.ts';
import type { RunningService } from '../src/runtime.ts';
import { localSite } from './helpers/local-site.ts';
import { signPayment } from './helpers/payments.ts';
import { balances, useTestService } from './helpers/service.ts';

// Property-based fuzzing of every door a payment (or a wallet proof) comes in through, against one
// running dev service: whatever a caller sends, the answer is a 402 or a 4xx problem, never a 5xx,
// never a hang, and nothing is charged unless a response was served. Reproducible: fixed seed
// (FUZZ_SEED overrides it); fast-check prints the seed and path of any counterexample.

const SEED = Number(process.env.FUZZ_SEED ?? 402_2025);
/** Requests in flight at once: one property run fires this many, over keep-alive connections. */
const PARALLEL = 16;
/** Every answer must arrive within this. */
const REQUEST_BOUND_MS = 5_000;
/** Property runs (each fires PARALLEL cases); FUZZ_SCALE multiplies them for a longer hunt. */
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const RUNS = {
  x402Garbage: 70,
  x402Mutated: 40,
  mppGarbage: 20,
  mppMutated: 14,
  mcpGarbage: 12,
  mcpMutated: 10,
  mcpProofs: 8,
  siwxGarbage: 20,
  siwxMutated: 10,
  products: 75,
};
const runs = (name: keyof typeof RUNS) => Math.max(1, Math.round(RUNS[name] * SCALE));
/** Per property test: the default 60 s, longer when scaled up. */
const TIMEOUT = 60_000 * Math.max(1, SCALE);
const MPP_SECRET_KEY = 'fuzz-test-secret-key-of-at-least-32-bytes!';

let chain: DevChain;
let service: RunningService;
useTestService((c, s) => ((chain = c), (service = s)), { env: { MPP_SECRET_KEY, PERCALL_FETCH_ALLOW_LOOPBACK: '1' } });

// ---------------------------------------------------------------------------------------------
// Bookkeeping: every fuzzed payment header, every response served (and charged).

let fuzzedPaymentHeaders = 0;
const charged = { calls: 0, atomic: 0n };
let start: { buyer: bigint; ledgerRows: number };

function recordCharge(amount: bigint): void {
  charged.calls += 1;
  charged.atomic += amount;
}

interface Sent {
  status: number;
  headers: Headers;
  body: string;
}

async function send(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Sent> {
  const response = await fetch(`${service.url}${path}`, { ...init, signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** Runs a property whose every run fires PARALLEL generated cases at once. */
async function batched<T>(arb: fc.Arbitrary<T>, numRuns: number, check: (value: T) => Promise<void>): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(arb, { minLength: PARALLEL, maxLength: PARALLEL }), async (values) => {
      await Promise.all(values.map(check));
    }),
    { numRuns, seed: SEED },
  );
}

const show = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text && text.length > 300 ? `${text.slice(0, 300)}…(${text.length} chars)` : text;
};

/**
 * The property of an x402 door: never 5xx; a 402 carries a decodable PAYMENT-REQUIRED; a 200 is a
 * paid response (PAYMENT-RESPONSE) and is counted as a charge of `price`.
 */
function expectX402Answer(sent: Sent, price: bigint, what: string): void {
  expect(sent.status, `${what} → ${sent.status} ${show(sent.body)}`).toBeLessThan(500);
  if (sent.status === 402) {
    const required = decodePaymentRequiredHeader(sent.headers.get('payment-required') ?? '');
    expect(required.x402Version, what).toBe(2);
    expect(required.accepts.length, what).toBeGreaterThan(0);
  }
  if (sent.status === 200) {
    const settlement = decodePaymentResponseHeader(sent.headers.get('payment-response') ?? '');
    expect(settlement.success, what).toBe(true);
    recordCharge(settlement.amount ? BigInt(settlement.amount) : price);
  }
}

// ---------------------------------------------------------------------------------------------
// Generators.

/** A header value fetch can send: bytes of any string as latin1, controls other than HTAB replaced. */
function headerSafe(text: string): string {
  return Buffer.from(text, 'utf8')
    .toString('latin1')
    .replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '?');
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64json = (value: unknown) => b64(expand(JSON.stringify(value) ?? 'null'));
const b64urlJson = (value: unknown) => Buffer.from(expand(JSON.stringify(value) ?? 'null'), 'utf8').toString('base64url');

/**
 * A deeply nested JSON value. It travels as a token (its `toJSON`) that `expand` replaces with the
 * nested text after serialisation: JSON.stringify itself overflows the stack a few thousand levels
 * down, JSON.parse (what the service runs) does not.
 */
class Deep {
  constructor(
    readonly kind: 'array' | 'object' | 'mixed',
    readonly depth: number,
  ) {}
  toJSON(): string {
    return `@@deep:${this.kind}:${this.depth}@@`;
  }
  [fc.toStringMethod](): string {
    return `Deep(${this.kind}, ${this.depth})`;
  }
}

/** JSON text with every Deep token replaced by its nested value. */
function expand(json: string): string {
  return json.replace(/"@@deep:(array|object|mixed):(\d+)@@"/g, (_, kind: string, depth: string) => {
    const open: string[] = [];
    const close: string[] = [];
    for (let i = 0; i < Number(depth); i++) {
      const array = kind === 'array' || (kind === 'mixed' && i % 2 === 0);
      open.push(array ? '[' : '{"a":');
      close.push(array ? ']' : '}');
    }
    return `${open.join('')}${kind === 'object' ? '{}' : '[]'}${close.reverse().join('')}`;
  });
}

function deep(max: number): fc.Arbitrary<Deep> {
  return fc.record({ depth: fc.integer({ min: 50, max }), kind: fc.constantFrom('array', 'object', 'mixed') }).map(({ depth, kind }) => new Deep(kind, depth));
}

/** Arbitrary header strings: printable, latin1, base64-looking, JSON text, scheme-prefixed. */
const arbitraryHeader = fc.oneof(
  fc.string({ maxLength: 300 }).map(headerSafe),
  fc.string({ unit: 'binary', maxLength: 200 }).map(headerSafe),
  fc.base64String({ maxLength: 400 }),
  fc.json({ maxDepth: 3 }).map(headerSafe),
  fc.constantFrom('', ' ', '=', '==', 'null', 'e30=', 'W10=', 'bnVsbA==', 'MA==', 'IiI=', 'dHJ1ZQ==', '%%%', 'Payment', 'Bearer x'),
);

/** Values that are nearly right for a payment field (amounts, addresses, networks, hex). */
const nearMiss = fc.oneof(
  fc.constantFrom(
    '', '0', '-1', '1', '1.5', '1e3', '1e400', 'NaN', 'Infinity', '0x', '0x0', '0xzz', 'abc', ' 10000', '10000 ', '010000',
    '99999999999999999999999999999999999999999999999999999999999999999999999999999999',
    '115792089237316195423570985008687907853269984665640564039457584007913129639936',
    'eip155:31337', 'eip155:1', 'eip155:', 'eip155:-1', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', 'solana:', 'tempo', 'exact', 'upto', 'EXACT',
    'http://', 'http://127.0.0.1/api/v1/paid/time', 'mcp://tool/echo', 'mcp://', '::', '__proto__', 'constructor', 'toString',
    '2025-01-01T00:00:00Z', '9999-12-31T23:59:59Z', 'not a date',
  ),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 140 }).map((s) => `0x${s}`),
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map(String),
  fc.integer(),
  fc.double({ noNaN: true }),
);

const hexDigits = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: length, maxLength: length });

/** Values of the right type for a payment field but (almost always) the wrong value: these get past shape checks to verification. */
const wellTyped = fc.oneof(
  hexDigits(40).map((h) => `0x${h}`),
  hexDigits(64).map((h) => `0x${h}`),
  hexDigits(130).map((h) => `0x${h}`),
  fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }).map(String),
  fc.integer({ min: 0, max: 20_000 }).map(String),
  fc.integer({ min: -1000, max: 100_000 }).map((s) => String(Math.floor(Date.now() / 1000) + s)),
);

const DELETE = Symbol('delete');
/** What a mutation puts in a field: any JSON, near misses, well-typed values, deletion, deep nesting. */
const mutationValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: nearMiss },
  { weight: 4, arbitrary: wellTyped },
  { weight: 1, arbitrary: fc.constant(DELETE) },
  { weight: 1, arbitrary: deep(1500) },
);

interface Mutation {
  path: readonly string[];
  value: unknown;
}

/** 1 to 3 replacements of fields of a genuine document, each at one of `paths`. */
function mutations(paths: readonly (readonly string[])[]): fc.Arbitrary<Mutation[]> {
  return fc.array(fc.record({ path: fc.constantFrom(...paths), value: mutationValue }), { minLength: 1, maxLength: 3 });
}

function mutate(document: unknown, changes: readonly Mutation[]): unknown {
  const root = structuredClone(document) as Record<string, unknown>;
  for (const { path, value } of changes) {
    let node = root;
    for (const key of path.slice(0, -1)) {
      const next = node[key];
      if (typeof next !== 'object' || next === null) node[key] = {};
      node = node[key] as Record<string, unknown>;
    }
    const last = path[path.length - 1]!;
    if (value === DELETE) delete node[last];
    else node[last] = value;
  }
  return root;
}

const X402_PATHS: readonly (readonly string[])[] = [
  ['accepted'],
  ['accepted', 'amount'],
  ['accepted', 'scheme'],
  ['accepted', 'network'],
  ['accepted', 'asset'],
  ['accepted', 'payTo'],
  ['accepted', 'maxTimeoutSeconds'],
  ['accepted', 'extra'],
  ['accepted', 'extra', 'name'],
  ['payload'],
  ['payload', 'signature'],
  ['payload', 'authorization'],
  ['payload', 'authorization', 'from'],
  ['payload', 'authorization', 'to'],
  ['payload', 'authorization', 'value'],
  ['payload', 'authorization', 'validAfter'],
  ['payload', 'authorization', 'validBefore'],
  ['payload', 'authorization', 'nonce'],
  ['payload', 'permit2Authorization'],
  ['payload', 'transaction'],
  ['resource'],
  ['resource', 'url'],
  ['extensions'],
  ['extensions', 'payment-identifier'],
  ['extensions', 'payment-identifier', 'info'],
  ['extensions', 'payment-identifier', 'info', 'id'],
  ['x402Version'],
];

/** The x402 payment headers a caller may send: arbitrary text, base64 of any JSON, deep nesting. */
const x402Garbage = fc.oneof(
  arbitraryHeader,
  fc.jsonValue().map(b64json),
  deep(4000).map(b64json),
  fc.jsonValue({ maxDepth: 2 }).map((payload) => b64json({ x402Version: 2, accepted: {}, payload })),
);

// ---------------------------------------------------------------------------------------------
// The doors.

interface X402Door {
  name: string;
  path: string;
  method: 'GET' | 'POST';
  body?: string;
  price: bigint;
  quote: PaymentRequired;
}

/** The door's quote restricted to the EVM `exact` offer the dev buyer signs. */
function evmQuote(required: PaymentRequired): PaymentRequired {
  return { ...required, accepts: required.accepts.filter((a) => a.network === chain.network && a.scheme === 'exact') };
}

async function x402Door(name: string, path: string, method: 'GET' | 'POST', body?: unknown): Promise<X402Door> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const sent = await send(path, { method, ...(text ? { body: text, headers: { 'content-type': 'application/json' } } : {}) });
  expect(sent.status, `${name}: ${sent.body}`).toBe(402);
  const quote = evmQuote(decodePaymentRequiredHeader(sent.headers.get('payment-required')!));
  expect(quote.accepts.length, name).toBeGreaterThan(0);
  return { name, path, method, ...(text ? { body: text } : {}), price: BigInt(quote.accepts[0]!.amount), quote };
}

function callDoor(door: X402Door, headers: Record<string, string>): Promise<Sent> {
  return send(door.path, {
    method: door.method,
    headers: { ...(door.body ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(door.body ? { body: door.body } : {}),
  });
}

const paymentHeaderName = fc.constantFrom('payment-signature', 'x-payment');

// The minimal inputs that made the properties below fail, kept as plain examples (they run first,
// so the accounting of the properties starts after them).
describe('malformed payment input found by the properties: each is a 4xx, never a 5xx', () => {
  const evaluation = '/api/v1/paid/endpoint-task-evaluation';
  const postJson = (path: string, body: string, headers: Record<string, string> = {}) =>
    send(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('x402: a genuine EIP-3009 payment with `payload.permit2Authorization: null` added is a 402, not a 503', async () => {
    const door = await x402Door('GET time', '/api/v1/paid/time', 'GET');
    const genuine = await signPayment(chain.buyer.privateKey, door.quote);
    const before = await balances(chain);
    const sent = await callDoor(door, { 'payment-signature': b64json({ ...genuine, payload: { ...genuine.payload, permit2Authorization: null } }) });
    expect(sent.status).toBe(402);
    expect(decodePaymentRequiredHeader(sent.headers.get('payment-required')!).error).toMatch(/^invalid_payment_header/);
    // The same over MCP: a payment-required result, not an internal error.
    const client = new Client({ name: 'percall-fuzz-example', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    const mcpQuote = evmQuote((await client.callTool({ name: 'server_time', arguments: {} })).structuredContent as PaymentRequired);
    const mcpGenuine = await signPayment(chain.buyer.privateKey, mcpQuote);
    const result = (await client.callTool({ name: 'server_time', arguments: {}, _meta: { 'x402/payment': { ...mcpGenuine, payload: { ...mcpGenuine.payload, permit2Authorization: null } } } })) as { isError?: boolean; structuredContent?: unknown };
    expect(result.isError).toBe(true);
    expect((result.structuredContent as PaymentRequired).error).toBe('invalid_payment_payload');
    await client.close();
    expect(await balances(chain)).toEqual(before);
    // Nothing was spent: the untouched payment still buys the call.
    expect((await callDoor(door, { 'payment-signature': b64json(genuine) })).status).toBe(200);
  });

  it('SIGN-IN-WITH-X: a genuine wallet proof whose `address` is not an address is a 402, not a 500 (HTTP and MCP)', async () => {
    const path = '/api/v1/paid/route-task';
    const body = JSON.stringify({ task: 'current server time' });
    const required = decodePaymentRequiredHeader((await postJson(path, body)).headers.get('payment-required')!);
    const proof = { ...(await proveWallet(required, `${service.url}${path}`)), address: '38' };
    const sent = await postJson(path, body, { 'sign-in-with-x': b64json(proof) });
    expect(sent.status).toBe(402);
    expect(decodePaymentRequiredHeader(sent.headers.get('payment-required')!).error).toBe('invalid_siwx_payload');

    const client = new Client({ name: 'percall-fuzz-example', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    const challenge = (await client.callTool({ name: 'route_task', arguments: { task: 'current server time' } })).structuredContent as PaymentRequired;
    const mcpProof = { ...(await proveWallet(challenge, `${service.url}/mcp`)), address: '38' };
    const result = (await client.callTool({ name: 'route_task', arguments: { task: 'current server time' }, _meta: { 'sign-in-with-x': mcpProof } })) as { isError?: boolean; structuredContent?: unknown };
    expect((result.structuredContent as PaymentRequired).error).toBe('invalid_siwx_payload');
    await client.close();
  });

  it('a proof-gated route with a JSON body nested 5,000 levels deep is a 4xx, not a 500', async () => {
    const sent = await postJson('/api/v1/paid/x401-batch-extract', expand(JSON.stringify({ urls: new Deep('array', 5000) })));
    expect(sent.status).toBeLessThan(500);
    expect(sent.status).toBeGreaterThanOrEqual(400);
  });

  it('a schema-valid input nested 5,000 levels deep with a genuine payment is a 400, not a 500, and charges nothing', async () => {
    const target = 'http://127.0.0.1:9/status';
    const body = expand(JSON.stringify({ target_url: target, method: 'POST', body: new Deep('array', 5000) }));
    const required = decodePaymentRequiredHeader((await postJson(evaluation, JSON.stringify({ target_url: target }))).headers.get('payment-required')!);
    const payment = await signPayment(chain.buyer.privateKey, evmQuote(required));
    const before = await balances(chain);
    const sent = await postJson(evaluation, body, { 'payment-signature': b64json(payment) });
    expect(sent.status, sent.body).toBe(400);

    // The same arguments for the MCP tool, with its genuine payment: invalid params, not an internal error.
    const client = new Client({ name: 'percall-fuzz-example', version: '1.0.0' });
    const deepArguments = (input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, body: typeof init?.body === 'string' ? expand(init.body) : init?.body });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { fetch: deepArguments }));
    const mcpQuote = evmQuote((await client.callTool({ name: 'endpoint_task_evaluation', arguments: { target_url: target } })).structuredContent as PaymentRequired);
    const call = client.callTool({ name: 'endpoint_task_evaluation', arguments: { target_url: target, method: 'POST', body: new Deep('array', 5000) }, _meta: { 'x402/payment': await signPayment(chain.buyer.privateKey, mcpQuote) } });
    await expect(call).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    await client.close();
    expect(await balances(chain)).toEqual(before);
  });
});

describe('fuzzing payments: malformed input is a 402 or a 4xx, never a 5xx', () => {
  let doors: X402Door[];

  beforeAll(async () => {
    start = { buyer: (await balances(chain)).buyer, ledgerRows: (await service.percall.store.ledger({ limit: 1_000_000 })).length };
    const routeTask = service.percall.catalogue.byHttpPath('/api/v1/paid/route-task') as AvailableProduct;
    doors = [
      await x402Door('GET time', '/api/v1/paid/time', 'GET'),
      await x402Door('POST route-task', '/api/v1/paid/route-task', 'POST', routeTask.inputExample),
      await x402Door('POST orders', '/api/v1/orders', 'POST', { product: 'time', input: {} }),
    ];
  });

  it('x402 PAYMENT-SIGNATURE / X-PAYMENT: arbitrary strings, base64 of arbitrary JSON, deep nesting', async () => {
    await batched(fc.record({ door: fc.nat({ max: doors.length - 1 }), header: paymentHeaderName, value: x402Garbage }), runs('x402Garbage'), async ({ door: i, header, value }) => {
      const door = doors[i]!;
      fuzzedPaymentHeaders++;
      expectX402Answer(await callDoor(door, { [header]: value }), door.price, `${door.name} ${header}: ${show(value)}`);
    });
  }, TIMEOUT);

  it('x402: genuine signed payloads with fields replaced by arbitrary JSON', async () => {
    const arb = fc.record({ door: fc.nat({ max: doors.length - 1 }), base: fc.nat({ max: 1 }), header: paymentHeaderName, changes: mutations(X402_PATHS) });
    await fc.assert(
      fc.asyncProperty(fc.array(arb, { minLength: PARALLEL, maxLength: PARALLEL }), async (cases) => {
        // Fresh genuine payloads each run (2 per door), so a mutation that leaves one valid reaches
        // verification rather than the replay guard; one that is still valid is served and charged once.
        const genuine = await Promise.all(doors.map((door) => Promise.all([0, 1].map(() => signPayment(chain.buyer.privateKey, door.quote)))));
        await Promise.all(
          cases.map(async ({ door: i, base, header, changes }) => {
            const door = doors[i]!;
            const payload = mutate(genuine[i]![base]!, changes);
            fuzzedPaymentHeaders++;
            const what = `${door.name} ${header} mutated ${show(changes.map((c) => [c.path.join('.'), c.value === DELETE ? '<deleted>' : c.value]))}`;
            expectX402Answer(await callDoor(door, { [header]: b64json(payload) }), door.price, what);
          }),
        );
      }),
      { numRuns: runs('x402Mutated'), seed: SEED },
    );
  }, TIMEOUT);

  it('MPP Authorization: Payment on the MPP route: arbitrary strings and mutated genuine credentials', async () => {
    const target = await localSite((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    try {
      const path = '/api/v1/paid/endpoint-task-evaluation';
      const body = JSON.stringify({ target_url: `${target.url}/status` });
      const post = (headers: Record<string, string> = {}) => send(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      const price = usdToAtomic((service.percall.catalogue.byHttpPath(path) as AvailableProduct).http!.price);
      const mpp = createMppClient(chain.buyer.privateKey, { chainId: chain.chainId, address: chain.usdc, name: chain.usdcName, version: chain.usdcVersion });

      const expectMppAnswer = (sent: Sent, what: string) => {
        expect(sent.status, `${what} → ${sent.status} ${show(sent.body)}`).toBeLessThan(500);
        if (sent.status === 402) expect(sent.headers.get('www-authenticate') ?? '', what).toMatch(/^Payment /);
        if (sent.status === 200) {
          expect(sent.headers.get('payment-receipt'), what).toBeTruthy();
          recordCharge(price);
        }
      };

      // Arbitrary Authorization values, with and without the Payment scheme.
      const authorization = fc.oneof(
        arbitraryHeader.map((v) => `Payment ${v}`),
        arbitraryHeader,
        fc.jsonValue().map((v) => `Payment ${b64urlJson(v)}`),
        fc.record({ challenge: fc.jsonValue(), payload: fc.jsonValue() }).map((v) => `Payment ${b64urlJson(v)}`),
        deep(3000).map((v) => `Payment ${b64urlJson({ challenge: v, payload: v })}`),
        fc.tuple(arbitraryHeader, arbitraryHeader).map(([a, b]) => `Bearer ${a}, Payment ${b}`),
      );
      await batched(authorization, runs('mppGarbage'), async (value) => {
        fuzzedPaymentHeaders++;
        expectMppAnswer(await post({ authorization: value }), `authorization: ${show(value)}`);
      });

      // Genuine credentials (the official mppx client), their base64url JSON mutated.
      const decode = (credential: string) => JSON.parse(Buffer.from(credential.replace(/^Payment\s+/i, ''), 'base64url').toString('utf8')) as Record<string, unknown>;
      const sample = decode(await mpp.createCredential(new Response(null, { status: 402, headers: { 'www-authenticate': (await post()).headers.get('www-authenticate')! } })));
      const challengeKeys = Object.keys(sample.challenge as object);
      const payloadKeys = Object.keys(sample.payload as object);
      const MPP_PATHS: string[][] = [
        ['challenge'],
        ['payload'],
        ['source'],
        ...challengeKeys.map((k) => ['challenge', k]),
        ...payloadKeys.map((k) => ['payload', k]),
        ['payload', 'authorization'],
      ];
      const arb = fc.record({
        changes: mutations(MPP_PATHS),
        request: fc.option(fc.record({ key: fc.constantFrom('amount', 'currency', 'recipient', 'methodDetails', 'decimals'), value: mutationValue })),
        // Sometimes an Idempotency-Key beside the credential, well-formed or not.
        idempotencyKey: fc.option(fc.oneof(arbitraryHeader, fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_'), minLength: 8, maxLength: 40 })), { freq: 3 }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(arb, { minLength: PARALLEL, maxLength: PARALLEL }), async (cases) => {
          await Promise.all(
            cases.map(async ({ changes, request, idempotencyKey }) => {
              const credential = decode(await mpp.createCredential(new Response(null, { status: 402, headers: { 'www-authenticate': (await post()).headers.get('www-authenticate')! } })));
              const mutated = mutate(credential, changes) as { challenge?: { request?: unknown } };
              if (request && typeof mutated.challenge === 'object' && mutated.challenge && typeof mutated.challenge.request === 'string') {
                // The challenge's request is itself base64url JSON: mutate inside it as well (when it still is).
                let inner: unknown;
                try {
                  inner = JSON.parse(Buffer.from(mutated.challenge.request, 'base64url').toString('utf8'));
                } catch {
                  inner = {};
                }
                mutated.challenge.request = b64urlJson(mutate(typeof inner === 'object' && inner !== null ? inner : {}, [{ path: [request.key], value: request.value }]));
              }
              const value = `Payment ${b64urlJson(mutated)}`;
              fuzzedPaymentHeaders++;
              const what = `MPP credential mutated ${show(changes.map((c) => [c.path.join('.'), c.value === DELETE ? '<deleted>' : c.value]))} request ${show(request)} idempotency-key ${show(idempotencyKey)}`;
              expectMppAnswer(await post({ authorization: value, ...(idempotencyKey !== null ? { 'idempotency-key': idempotencyKey } : {}) }), what);
            }),
          );
        }),
        { numRuns: runs('mppMutated'), seed: SEED },
      );
    } finally {
      target.close();
    }
  }, TIMEOUT);

  it('MCP tools/call: _meta["x402/payment"] and _meta["sign-in-with-x"] arbitrary or mutated, never an internal error', async () => {
    let statuses: number[] = [];
    /** No HTTP answer of /mcp was a 5xx since the last check. */
    const expectNo5xx = (what: string) => {
      const failed = statuses.filter((s) => s >= 500);
      statuses = [];
      expect(failed, what).toEqual([]);
    };
    // The SDK client serialises the request; deep values are expanded on the way out (see Deep).
    const recordingFetch = async (input: string | URL | Request, init?: RequestInit) => {
      const body = typeof init?.body === 'string' ? expand(init.body) : init?.body;
      const response = await fetch(input, { ...init, body });
      statuses.push(response.status);
      return response;
    };
    const client = new Client({ name: 'percall-fuzz', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { fetch: recordingFetch }));
    try {
      type ToolResult = { isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };
      const tools = [
        { name: 'server_time', args: {} },
        { name: 'echo', args: { hello: 'fuzz' } },
        { name: 'route_task', args: (service.percall.catalogue.byToolName('route_task') as AvailableProduct).inputExample ?? {} },
      ];
      const prices = tools.map(({ name }) => usdToAtomic((service.percall.catalogue.byToolName(name) as AvailableProduct).mcp!.price));
      const quotes: PaymentRequired[] = [];
      for (const tool of tools) quotes.push(evmQuote((await client.callTool({ name: tool.name, arguments: tool.args })).structuredContent as PaymentRequired));

      const callTool = async (tool: number, meta: Record<string, unknown>, what: string) => {
        fuzzedPaymentHeaders++;
        let result: ToolResult;
        try {
          result = (await client.callTool({ name: tools[tool]!.name, arguments: tools[tool]!.args, _meta: meta }, undefined, { timeout: REQUEST_BOUND_MS })) as ToolResult;
        } catch (error) {
          // A protocol error (e.g. -32602) or an HTTP refusal (413 for a body over the limit) is an
          // answer; an internal error or no answer in time is not. HTTP statuses are checked per run.
          const code = error instanceof McpError ? error.code : undefined;
          expect(code, `${what}: ${String(error)}`).not.toBe(ErrorCode.InternalError);
          expect(code, `${what}: ${String(error)}`).not.toBe(ErrorCode.RequestTimeout);
          return;
        }
        if (!result.isError && result._meta?.['x402/payment-response']) recordCharge(prices[tool]!);
      };

      const metaValue = fc.oneof(fc.jsonValue(), deep(20_000), nearMiss, arbitraryHeader);
      await batched(fc.record({ tool: fc.nat({ max: tools.length - 1 }), key: fc.constantFrom('x402/payment', 'sign-in-with-x'), value: metaValue }), runs('mcpGarbage'), async ({ tool, key, value }) => {
        await callTool(tool, { [key]: value }, `${tools[tool]!.name} _meta[${key}] = ${show(value)}`);
        expectNo5xx(`${tools[tool]!.name} _meta[${key}] = ${show(value)}`);
      });

      // Genuine MCP payloads, mutated.
      await fc.assert(
        fc.asyncProperty(fc.array(fc.record({ tool: fc.nat({ max: tools.length - 1 }), changes: mutations(X402_PATHS) }), { minLength: PARALLEL, maxLength: PARALLEL }), async (cases) => {
          await Promise.all(
            cases.map(async ({ tool, changes }) => {
              const payload = mutate(await signPayment(chain.buyer.privateKey, quotes[tool]!), changes);
              await callTool(tool, { 'x402/payment': payload }, `${tools[tool]!.name} mutated payment ${show(changes.map((c) => [c.path.join('.'), c.value === DELETE ? '<deleted>' : c.value]))}`);
            }),
          );
          expectNo5xx('mutated payments');
        }),
        { numRuns: runs('mcpMutated'), seed: SEED },
      );

      // Genuine wallet proofs for route_task's free tier, mutated.
      const proofFor = async () => {
        const challenge = (await client.callTool({ name: 'route_task', arguments: tools[2]!.args })).structuredContent as PaymentRequired;
        return proveWallet(challenge, `${service.url}/mcp`);
      };
      await fc.assert(
        fc.asyncProperty(fc.array(mutations(SIWX_PATHS), { minLength: PARALLEL, maxLength: PARALLEL }), async (cases) => {
          await Promise.all(
            cases.map(async (changes) => {
              const proof = mutate(await proofFor(), changes);
              await callTool(2, { 'sign-in-with-x': proof }, `route_task mutated proof ${show(changes.map((c) => [c.path.join('.'), c.value === DELETE ? '<deleted>' : c.value]))}`);
            }),
          );
          expectNo5xx('mutated proofs');
        }),
        { numRuns: runs('mcpProofs'), seed: SEED },
      );
      expectNo5xx('end');
    } finally {
      await client.close();
    }
  }, TIMEOUT);

  it('SIGN-IN-WITH-X on a free-tier route: arbitrary strings, base64 JSON, mutated genuine proofs', async () => {
    const path = '/api/v1/paid/route-task';
    const body = JSON.stringify((service.percall.catalogue.byHttpPath(path) as AvailableProduct).inputExample);
    const post = (headers: Record<string, string> = {}) => send(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const expectFreeAnswer = (sent: Sent, what: string) => {
      expect(sent.status, `${what} → ${sent.status} ${show(sent.body)}`).toBeLessThan(500);
      if (sent.status === 402) decodePaymentRequiredHeader(sent.headers.get('payment-required') ?? '');
      // A free call is never a charge.
      if (sent.status === 200) expect(sent.headers.get('payment-response'), what).toBeNull();
    };
    const proofs = fc.oneof(arbitraryHeader, fc.jsonValue().map(b64json), deep(4000).map(b64json), fc.record({ chainId: nearMiss, address: nearMiss, signature: nearMiss }).map(b64json));
    await batched(proofs, runs('siwxGarbage'), async (value) => {
      fuzzedPaymentHeaders++;
      expectFreeAnswer(await post({ 'sign-in-with-x': value }), `sign-in-with-x: ${show(value)}`);
    });
    await fc.assert(
      fc.asyncProperty(fc.array(mutations(SIWX_PATHS), { minLength: PARALLEL, maxLength: PARALLEL }), async (cases) => {
        await Promise.all(
          cases.map(async (changes) => {
            const required = decodePaymentRequiredHeader((await post()).headers.get('payment-required')!);
            const proof = mutate(await proveWallet(required, `${service.url}${path}`), changes);
            fuzzedPaymentHeaders++;
            expectFreeAnswer(await post({ 'sign-in-with-x': b64json(proof) }), `mutated proof ${show(changes.map((c) => [c.path.join('.'), c.value === DELETE ? '<deleted>' : c.value]))}`);
          }),
        );
      }),
      { numRuns: runs('siwxMutated'), seed: SEED },
    );
    // The header as the official client encodes it still works after all that.
    const required = decodePaymentRequiredHeader((await post()).headers.get('payment-required')!);
    expect((await post({ 'sign-in-with-x': encodeSIWxHeader(await proveWallet(required, `${service.url}${path}`)) })).status).toBe(200);
  }, TIMEOUT);

  it("every product's input: arbitrary bodies or queries, unpaid and with a genuine payment, never 5xx and never charged", async () => {
    const UNPAID = new Set([402, 400, 401, 405, 413, 415, 422, 501]);
    const products = service.percall.catalogue.httpProducts();
    expect(products.length).toBeGreaterThan(10);
    // A genuine payment per available product that quotes on x402 EVM (never spent: every input below is invalid).
    const payments = new Map<string, PaymentPayload>();
    for (const product of products) {
      if (product.status !== 'available' || product.requiresProof) continue;
      const { path, method } = product.http!;
      const sent = await send(path, { method, ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) });
      expect(sent.status, `${product.id}: ${sent.body}`).toBe(402);
      const quote = evmQuote(decodePaymentRequiredHeader(sent.headers.get('payment-required')!));
      if (quote.accepts.length > 0) payments.set(product.id, await signPayment(chain.buyer.privateKey, quote));
    }
    expect(payments.size).toBeGreaterThan(5);

    const query = fc.array(fc.tuple(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('url', 'task', 'address', 'q', 'limit', 'symbol', 'tx', 'hash', 'network')), fc.oneof(fc.string({ maxLength: 40 }), nearMiss.map(String))), { maxLength: 5 });
    /** A body: JSON text, or replacements of fields of the product's own input example (see exampleBody). */
    const body = fc.oneof(
      { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
      { weight: 1, arbitrary: deep(20_000).map((v) => JSON.stringify({ url: v, task: v, input: v })) },
      { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('url', 'target_url', 'task', 'urls', 'address', 'max_price', 'schema', 'body', 'query', 'limit', 'model', 'messages'), fc.oneof(fc.jsonValue({ maxDepth: 2 }), nearMiss, deep(20_000))).map((v) => JSON.stringify(v)) },
      { weight: 4, arbitrary: fc.array(fc.record({ at: fc.nat(), value: mutationValue }), { minLength: 1, maxLength: 3 }) },
    );
    /** The product's input example with fields (at any depth, or new ones) replaced. */
    const exampleBody = (product: Product, changes: { at: number; value: unknown }[]) => {
      const example = product.inputExample ?? {};
      const paths = [...fieldPaths(example), ['body'], ['schema'], ['proof']];
      return JSON.stringify(mutate(example, changes.map(({ at, value }) => ({ path: paths[at % paths.length]!, value }))));
    };

    const check = async (product: Product, payment: PaymentPayload | undefined, input: { query?: [string, string][]; body?: string | { at: number; value: unknown }[] }) => {
      const { path, method } = product.http!;
      const text = input.body === undefined ? undefined : expand(typeof input.body === 'string' ? input.body : exampleBody(product, input.body));
      let target = path;
      if (method === 'GET') {
        const params = new URLSearchParams(input.query ?? []);
        // Exactly what the route reads (src/http/input.ts queryInput): the last value of each key.
        const record: Record<string, string> = {};
        params.forEach((v, k) => (record[k] = v));
        if (payment && product.input.safeParse(record).success) return; // a valid input would really be charged
        const search = params.toString();
        target = search ? `${path}?${search}` : path;
      } else if (payment) {
        let parsed: unknown;
        try {
          parsed = text!.trim() === '' ? {} : JSON.parse(text!);
        } catch {
          parsed = undefined;
        }
        // A valid input would really be charged: only invalid ones are paid for here (too deep counts as invalid).
        if (parsed !== undefined && depthOf(parsed) <= MAX_INPUT_DEPTH && product.input.safeParse(parsed).success) return;
      }
      const headers: Record<string, string> = method === 'POST' ? { 'content-type': 'application/json' } : {};
      if (payment) {
        headers['payment-signature'] = b64json(payment);
        fuzzedPaymentHeaders++;
      }
      const sent = await send(target, { method, headers, ...(method === 'POST' ? { body: text! } : {}) });
      const what = `${product.id} ${payment ? 'paid' : 'unpaid'} ${method} ${show(target)} ${show(text ?? '')}`;
      // 501 is how a product not on sale answers (without quoting or charging): the one 5xx allowed.
      if (sent.status >= 500) expect(`${sent.status} ${product.status}`, `${what} → ${show(sent.body)}`).toBe('501 unavailable');
      if (!payment) expect(UNPAID.has(sent.status), `${what} → ${sent.status} ${show(sent.body)}`).toBe(true);
      else expect(sent.status, `${what}: an invalid input with a valid payment is refused, not served`).not.toBe(200);
      if (sent.status === 402) decodePaymentRequiredHeader(sent.headers.get('payment-required') ?? '');
    };

    // Half the cases unpaid on any route, half paid (genuinely) on a route on sale.
    const payable = products.filter((p) => payments.has(p.id));
    const arb = fc.record({ paid: fc.boolean(), product: fc.nat(), query, body });
    await batched(arb, runs('products'), async ({ paid, product: i, query: q, body: b }) => {
      const product = paid ? payable[i % payable.length]! : products[i % products.length]!;
      await check(product, paid ? payments.get(product.id) : undefined, product.http!.method === 'GET' ? { query: q } : { body: b });
    });
  }, TIMEOUT);

  it('afterwards: the buyer paid exactly for the responses served, the ledger agrees, the service is healthy', async () => {
    const ledgerRows = (await service.percall.store.ledger({ limit: 1_000_000 })).length;
    const buyer = (await balances(chain)).buyer;
    console.info(`fuzz: ${fuzzedPaymentHeaders} payment headers/credentials/proofs fuzzed; ${charged.calls} calls served and charged (${charged.atomic} atomic USDC); seed ${SEED}`);
    if (SCALE >= 1) expect(fuzzedPaymentHeaders).toBeGreaterThanOrEqual(3_500);
    expect(start.buyer - buyer).toBe(charged.atomic);
    expect(ledgerRows - start.ledgerRows).toBe(charged.calls);
    const health = await send('/health');
    expect(health.status).toBe(200);
  });
});

/** Every field path of a JSON document, objects and arrays alike (array indices as keys). */
function fieldPaths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [[...prefix, key], ...fieldPaths(child, [...prefix, key])]);
}

/** How deeply a JSON value nests (0 for a scalar), without recursion. */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    max = Math.max(max, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return max;
}

const SIWX_PATHS: readonly (readonly string[])[] = [
  ['domain'],
  ['address'],
  ['statement'],
  ['uri'],
  ['version'],
  ['chainId'],
  ['type'],
  ['nonce'],
  ['issuedAt'],
  ['expirationTime'],
  ['notBefore'],
  ['requestId'],
  ['resources'],
  ['signatureScheme'],
  ['signature'],
];

/** Answers a 402's sign-in-with-x challenge with a fresh wallet, as the official SIWx client helper does. */
async function proveWallet(required: PaymentRequired, requestUrl: string) {
  const extension = (required.extensions as Record<string, SIWxExtension>)['sign-in-with-x']!;
  const evm = extension.supportedChains.find((c) => c.chainId.startsWith('eip155:'))!;
  const info: CompleteSIWxInfo = { ...extension.info, chainId: evm.chainId, type: evm.type };
  return createSIWxPayload(info, privateKeyToAccount(generatePrivateKey()), requestUrl);
}
