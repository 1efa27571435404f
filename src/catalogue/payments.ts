import { z } from 'zod';
import { evmAddress } from './chain.ts';
import { evaluateEndpoint } from '../products/endpoint-evaluation.ts';
import { verifyX402Endpoint } from '../products/x402-audit.ts';
import { FIXED, X402_AND_MPP, X402_BOTH, available, unavailable, type Product } from './types.ts';
import { fetchableUrl, jsonSchemaObject } from './web.ts';

const READ_EXTERNAL = { readOnlyHint: true, openWorldHint: true } as const;
const usd = () => z.string().regex(/^\d+(\.\d{1,6})?$/);
/** What Node can send as a header: a token name and a value without control characters (checked before payment). */
const headerName = () => z.string().regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, 'must be an HTTP header name');
const headerValue = () => z.string().regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'must not contain control or non-Latin-1 characters');
/** An expected header value: exact, or `/regex/flags` that compiles (at most 200 characters). */
const expectedHeader = () =>
  z.string().refine((value) => {
    const regex = /^\/(.*)\/([a-z]*)$/.exec(value);
    if (!regex) return true;
    if (regex[1]!.length > 200) return false;
    try {
      new RegExp(regex[1]!, regex[2]!.replace(/[^imsu]/g, ''));
      return true;
    } catch {
      return false;
    }
  }, 'a /regex/ must be a valid regular expression of at most 200 characters');

export const endpointTaskEvaluationOutput = z.object({
  status: z.int().describe('HTTP status seen from the target'),
  payment_required: z.boolean().describe('Whether the target asked for payment (HTTP 402)'),
  payment_accepted: z.boolean().describe('Whether the 402 carries a well-formed payment challenge a standard client could pay (x402 v1/v2 or MPP); the evaluation never pays'),
  response_valid: z.boolean().describe('Whether the response satisfied the task assertions'),
  latency_ms: z.int().describe('Time to the response, in milliseconds'),
  schema_errors: z.array(z.unknown()).describe('Assertion or schema violations found'),
  failure_reason: z.string().nullable().describe('Why the evaluation failed, or null'),
  tested_at: z.iso.datetime().describe('When the request was made, ISO 8601'),
});

export const paymentsProducts: Product[] = [
  available({
    id: 'endpoint-task-evaluation',
    title: 'Endpoint task evaluation',
    description:
      "Makes one bounded request to a target endpoint without paying it and returns its status, payment signals, latency and whether the response meets your assertions; the target's body is not returned. Not charged when the target does not resolve or is refused (422); an endpoint that answers with an error, refuses the connection or times out is a delivered evaluation (`status`, `failure_reason`).",
    category: 'payments',
    http: { method: 'POST', path: '/api/v1/paid/endpoint-task-evaluation', price: '0.01' },
    mcp: { tool: 'endpoint_task_evaluation', price: '0.01', annotations: { openWorldHint: true } },
    mode: FIXED,
    rails: X402_AND_MPP,
    input: z.object({
      target_url: fetchableUrl().describe('http or https URL of the endpoint to evaluate'),
      method: z
        .string()
        .regex(/^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|get|head|post|put|patch|delete|options)$/, 'must be GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS')
        .optional()
        .describe('HTTP method for the request (default GET)'),
      headers: z.record(headerName(), headerValue()).optional().describe('Request headers to send'),
      body: z.unknown().optional().describe('Request body (JSON) to send'),
      task_assertions: z
        .object({
          expect_status: z.union([z.int(), z.array(z.int()).min(1)]).optional().describe('Expected HTTP status(es); default any 2xx or 402'),
          expect_headers: z.record(headerName(), expectedHeader()).optional().describe('Header name → exact value, or /regex/'),
          json_schema: jsonSchemaObject().optional().describe('JSON Schema (2020-12) the JSON body must satisfy'),
          max_latency_ms: z.int().positive().optional().describe('Upper bound on the time to the complete answer'),
          body_contains: z.string().max(1000).optional().describe('Text the body must contain'),
        })
        .optional()
        .describe('Assertions on the response; all given must hold'),
    }),
    inputExample: {
      target_url: 'https://api.example.com/api/v1/paid/time',
      method: 'GET',
      task_assertions: { expect_status: 402 },
    },
    outputSchema: z.toJSONSchema(endpointTaskEvaluationOutput),
    outputExample: {
      status: 402,
      payment_required: true,
      payment_accepted: false,
      response_valid: true,
      latency_ms: 184,
      schema_errors: [],
      failure_reason: null,
      tested_at: '2025-06-01T12:00:00.000Z',
    },
    run: evaluateEndpoint,
  }),
  available({
    id: 'x402-endpoint-verify',
    title: 'x402 endpoint verify',
    description:
      "Probes an endpoint without paying and verifies its x402 challenge: returns whether it answers 402, the parsed payment requirements (networks, schemes, amounts, recipient) and any spec violations. Charged for any HTTP answer, errors included; not charged when the URL is refused or does not resolve (422) or the endpoint gives no answer (502/504).",
    category: 'payments',
    http: { method: 'POST', path: '/api/v1/paid/x402-endpoint-verify', price: '0.02' },
    mcp: { tool: 'x402_endpoint_verify', price: '0.02', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      url: fetchableUrl().describe('http or https URL of the paid endpoint'),
      method: z.enum(['GET', 'POST']).default('GET').describe('HTTP method to probe with'),
    }),
    inputExample: { url: 'https://api.example.com/api/v1/paid/time', method: 'GET' },
    outputExample: {
      url: 'https://api.example.com/api/v1/paid/time',
      status: 402,
      x402_version: 2,
      valid: true,
      accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', pay_to: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C' }],
      bazaar: true,
      findings: [],
      checked_at: '2025-06-01T12:00:00.000Z',
    },
    run: verifyX402Endpoint,
  }),
  unavailable({
    id: 'x402-facilitator-health',
    title: 'x402 facilitator health',
    description: 'Checks an x402 facilitator and returns whether it is up, its latency and the networks and schemes it supports.',
    category: 'payments',
    http: { method: 'GET', path: '/api/v1/paid/x402-facilitator-health', price: '0.003' },
    mcp: { tool: 'x402_facilitator_health', price: '0.003', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      facilitator_url: z.url().optional().describe("Facilitator base URL (default: this service's facilitator)"),
    }),
    inputExample: { facilitator_url: 'https://facilitator.example.com' },
  }),
  unavailable({
    id: 'settlement-verify',
    title: 'Settlement verify',
    description:
      'Verifies on chain that a payment settled (transaction, network, recipient, amount) and returns the result with a `verification_id` for later lookup.',
    category: 'payments',
    http: { method: 'POST', path: '/api/v1/paid/settlement-verify', price: '0.01' },
    mcp: { tool: 'settlement_verify', price: '0.01', annotations: { openWorldHint: true } },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      transaction: z.string().min(1).describe('Transaction hash (EVM) or signature (Solana)'),
      network: z.string().min(1).describe('CAIP-2 network id, e.g. "eip155:8453"'),
      pay_to: z.string().optional().describe('Expected recipient address'),
      amount: z.string().regex(/^\d+$/).optional().describe('Expected amount in atomic USDC units'),
    }),
    inputExample: {
      transaction: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
      network: 'eip155:8453',
      pay_to: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
      amount: '10000',
    },
  }),
  unavailable({
    id: 'x402-receipt-lookup',
    title: 'x402 receipt lookup',
    description: 'Looks up a settlement verification by its `verification_id` and returns the stored receipt.',
    category: 'payments',
    http: { method: 'GET', path: '/api/v1/paid/x402-receipt-lookup', price: '0.002' },
    mcp: { tool: 'x402_receipt_lookup', price: '0.002', annotations: { readOnlyHint: true } },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      verification_id: z.string().min(1).describe('Id returned by settlement_verify'),
    }),
    inputExample: { verification_id: 'ver_01JH7Q4W2V9M3K8T5R6Y0ZP1XA' },
  }),
  unavailable({
    id: 'b402-preflight',
    title: 'b402 preflight',
    description:
      'Checks before paying that an endpoint speaks b402 (x402-style payments on BNB Chain): returns its payment requirements, token, amount and recipient, and any problems found.',
    category: 'payments',
    http: { method: 'POST', path: '/api/v1/paid/b402-preflight', price: '0.01' },
    mcp: { tool: 'b402_preflight', price: '0.01', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      url: z.url().describe('URL of the b402-paid endpoint'),
      method: z.enum(['GET', 'POST']).default('GET').describe('HTTP method to probe with'),
    }),
    inputExample: { url: 'https://api.example.com/paid/resource', method: 'GET' },
  }),
  unavailable({
    id: 'compile-payment-policy',
    title: 'Compile payment policy',
    description:
      "Compiles an agent's spending policy written in plain language into a machine-checkable JSON policy (budgets, per-call caps, allowed networks, sellers and routes) and returns it with any ambiguities.",
    category: 'payments',
    http: { method: 'POST', path: '/api/v1/paid/compile-policy', price: '0.02' },
    mcp: { tool: 'compile_payment_policy', price: '0.02', annotations: { readOnlyHint: true } },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      policy: z.string().min(1).max(10_000).describe('The spending policy in plain language'),
    }),
    inputExample: { policy: 'Spend at most 2 USD a day, never more than 0.05 per call, only on Base, never on people-search.' },
  }),
  unavailable({
    id: 'prepaid-access-token',
    title: 'Prepaid access token',
    description: 'Sells a prepaid access token for 1.00 USD and returns the token with its balance, scope and expiry.',
    category: 'payments',
    http: { method: 'POST', path: '/api/v1/paid/prepaid-access-token', price: '1.00' },
    mcp: { tool: 'prepaid_access_token', price: '1.00' },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      label: z.string().max(100).optional().describe('Free-text label stored with the token'),
    }),
    inputExample: { label: 'research-agent-1' },
  }),
  unavailable({
    id: 'mpp-admission-gate',
    title: 'MPP admission gate',
    description:
      'Decides whether a payer would be admitted to a paid resource under its payment terms (MPP or x402) and returns the decision, the reasons and the matching requirements.',
    category: 'payments',
    http: { method: 'POST', path: '/api/v1/paid/mpp-admission-gate', price: '0.005' },
    mcp: { tool: 'mpp_admission_gate', price: '0.005', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_AND_MPP,
    input: z.object({
      resource_url: z.url().describe('The paid resource'),
      payer: z.string().min(1).describe('Payer address or MPP identity'),
      max_amount: usd().optional().describe('Most USD the payer will authorize, as a decimal string'),
    }),
    inputExample: {
      resource_url: 'https://api.example.com/api/v1/paid/time',
      payer: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045',
      max_amount: '0.05',
    },
  }),
  unavailable({
    id: 'payer-profile',
    title: 'Payer profile',
    description:
      'Classifies a Base address as an x402 payer from its settlement history and returns its payer class with the evidence. Free doors: GET /api/v1/payer-profile/example and /api/v1/payer-profile/classes.',
    category: 'payments',
    http: { method: 'POST', path: '/api/v1/paid/payer-profile', price: '0.01' },
    mcp: { tool: 'payer_profile', price: '0.01', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      address: evmAddress().describe('Base address, 0x + 40 hex characters'),
    }),
    inputExample: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' },
    freeDoors: [
      { method: 'GET', path: '/api/v1/payer-profile/example', note: 'an example profile' },
      { method: 'GET', path: '/api/v1/payer-profile/classes', note: 'the list of payer classes' },
    ],
  }),
  unavailable({
    id: 'service-gateway',
    title: 'Service gateway',
    description:
      "Calls one of five allowlisted upstream x402 sellers on your behalf and returns the seller's response with the settlement receipt; the price is the upstream price plus a 10% margin.",
    category: 'payments',
    http: { method: 'POST', path: '/api/v1/paid/service-gateway', price: '0.001187' },
    mcp: { tool: 'service_gateway', price: '0.001187', annotations: { openWorldHint: true } },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      seller: z.string().min(1).describe('Id of the allowlisted upstream seller'),
      path: z.string().min(1).describe("Path of the seller's resource to call"),
      input: z.record(z.string(), z.unknown()).optional().describe("Input for the seller's resource"),
    }),
    inputExample: { seller: 'example-seller', path: '/api/v1/paid/time', input: {} },
  }),
];
