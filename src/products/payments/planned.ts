import { z } from 'zod';
import { OPEN_WORLD, READ, READ_EXTERNAL, evmAddress, planned, usdAmount } from '../kit/index.ts';

export const x402FacilitatorHealth = planned({
  id: 'x402-facilitator-health',
  title: 'x402 facilitator health',
  description: 'Checks an x402 facilitator and returns whether it is up, its latency and the networks and schemes it supports.',
  method: 'GET',
  price: '0.003',
  annotations: READ_EXTERNAL,
  input: z.object({
    facilitator_url: z.url().optional().describe("Facilitator base URL (default: this service's facilitator)"),
  }),
  inputExample: { facilitator_url: 'https://facilitator.example.com' },
});

export const settlementVerify = planned({
  id: 'settlement-verify',
  title: 'Settlement verify',
  description:
    'Verifies on chain that a payment settled (transaction, network, recipient, amount) and returns the result with a `verification_id` for later lookup.',
  price: '0.01',
  annotations: OPEN_WORLD,
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
});

export const x402ReceiptLookup = planned({
  id: 'x402-receipt-lookup',
  title: 'x402 receipt lookup',
  description: 'Looks up a settlement verification by its `verification_id` and returns the stored receipt.',
  method: 'GET',
  price: '0.002',
  annotations: READ,
  input: z.object({
    verification_id: z.string().min(1).describe('Id returned by settlement_verify'),
  }),
  inputExample: { verification_id: 'ver_01JH7Q4W2V9M3K8T5R6Y0ZP1XA' },
});

export const b402Preflight = planned({
  id: 'b402-preflight',
  title: 'b402 preflight',
  description:
    'Checks before paying that an endpoint speaks b402 (x402-style payments on BNB Chain): returns its payment requirements, token, amount and recipient, and any problems found.',
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({
    url: z.url().describe('URL of the b402-paid endpoint'),
    method: z.enum(['GET', 'POST']).default('GET').describe('HTTP method to probe with'),
  }),
  inputExample: { url: 'https://api.example.com/paid/resource', method: 'GET' },
});

export const compilePaymentPolicy = planned({
  id: 'compile-payment-policy',
  title: 'Compile payment policy',
  description:
    "Compiles an agent's spending policy written in plain language into a machine-checkable JSON policy (budgets, per-call caps, allowed networks, sellers and routes) and returns it with any ambiguities.",
  path: '/api/v1/paid/compile-policy',
  price: '0.02',
  annotations: READ,
  input: z.object({
    policy: z.string().min(1).max(10_000).describe('The spending policy in plain language'),
  }),
  inputExample: { policy: 'Spend at most 2 USD a day, never more than 0.05 per call, only on Base, never on people-search.' },
});

export const prepaidAccessToken = planned({
  id: 'prepaid-access-token',
  title: 'Prepaid access token',
  description: 'Sells a prepaid access token for 1.00 USD and returns the token with its balance, scope and expiry.',
  price: '1.00',
  input: z.object({
    label: z.string().max(100).optional().describe('Free-text label stored with the token'),
  }),
  inputExample: { label: 'research-agent-1' },
});

export const mppAdmissionGate = planned({
  id: 'mpp-admission-gate',
  title: 'MPP admission gate',
  description:
    'Decides whether a payer would be admitted to a paid resource under its payment terms (MPP or x402) and returns the decision, the reasons and the matching requirements.',
  price: '0.005',
  mpp: true,
  annotations: READ_EXTERNAL,
  input: z.object({
    resource_url: z.url().describe('The paid resource'),
    payer: z.string().min(1).describe('Payer address or MPP identity'),
    max_amount: usdAmount().optional().describe('Most USD the payer will authorize, as a decimal string'),
  }),
  inputExample: {
    resource_url: 'https://api.example.com/api/v1/paid/time',
    payer: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045',
    max_amount: '0.05',
  },
});

export const payerProfile = planned({
  id: 'payer-profile',
  title: 'Payer profile',
  description:
    'Classifies a Base address as an x402 payer from its settlement history and returns its payer class with the evidence. Free doors: GET /api/v1/payer-profile/example and /api/v1/payer-profile/classes.',
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({
    address: evmAddress().describe('Base address, 0x + 40 hex characters'),
  }),
  inputExample: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' },
  freeDoors: [
    { method: 'GET', path: '/api/v1/payer-profile/example', note: 'an example profile' },
    { method: 'GET', path: '/api/v1/payer-profile/classes', note: 'the list of payer classes' },
  ],
});

export const serviceGateway = planned({
  id: 'service-gateway',
  title: 'Service gateway',
  description:
    "Calls one of five allowlisted upstream x402 sellers on your behalf and returns the seller's response with the settlement receipt; the price is the upstream price plus a 10% margin.",
  price: '0.001187',
  annotations: OPEN_WORLD,
  input: z.object({
    seller: z.string().min(1).describe('Id of the allowlisted upstream seller'),
    path: z.string().min(1).describe("Path of the seller's resource to call"),
    input: z.record(z.string(), z.unknown()).optional().describe("Input for the seller's resource"),
  }),
  inputExample: { seller: 'example-seller', path: '/api/v1/paid/time', input: {} },
});
