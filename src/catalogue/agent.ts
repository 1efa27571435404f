import { z } from 'zod';
import { routeTask } from '../products/routing.ts';
import { auditAgentReadiness } from '../products/x402-audit.ts';
import { fetchableUrl } from './web.ts';
import { FIXED, X402_AND_MPP, X402_BOTH, available, unavailable, type Product } from './types.ts';

const READ = { readOnlyHint: true } as const;

const routeInput = z.object({
  task: z
    .string()
    .min(1)
    .max(2000)
    .regex(/[\p{L}\p{N}]/u, 'must name the task in words')
    .describe('What the agent needs done, in plain language'),
  max_price: z
    .string()
    .regex(/^\d+(\.\d{1,6})?$/)
    .optional()
    .describe('Most USD per call the agent will pay, as a decimal string'),
});
const routeExample = { task: 'current server time', max_price: '0.05' };
const routeOutputExample = {
  task: 'current server time',
  tier: 'paid',
  limit: 3,
  count: 1,
  recommendations: [
    {
      rank: 1,
      id: 'time',
      title: 'Server time',
      category: 'utility',
      description: 'Returns the current server time as an ISO 8601 UTC string (`time`) and as Unix epoch seconds (`unix`).',
      score: 9,
      http: { method: 'GET', path: '/api/v1/paid/time', price_usd: '0.01' },
      mcp: { tool: 'server_time', price_usd: '0.01' },
    },
  ],
};
/** Free calls of the routing products return the single best match. */
const ROUTE_FREE_RESULTS = 1;

export const agentProducts: Product[] = [
  available({
    id: 'agent-route',
    title: 'Agent route',
    description:
      'Recommends the paid endpoint(s) best suited to a task: the free call returns the top-1 recommendation, a paid call returns the ranked top three with price, network and why. When nothing on sale fits, the answer is an empty list (charged).',
    category: 'agent',
    http: { method: 'POST', path: '/api/v1/paid/agent-route', price: '0.01' },
    mcp: { tool: 'agent_route', price: '0.01', annotations: READ },
    mode: FIXED,
    rails: X402_BOTH,
    input: routeInput,
    inputExample: routeExample,
    outputExample: routeOutputExample,
    freeTier: { resultLimit: ROUTE_FREE_RESULTS, note: 'a free call returns the top-1 recommendation only; paid returns the ranked top three' },
    run: routeTask(ROUTE_FREE_RESULTS),
  }),
  available({
    id: 'route-task',
    title: 'Route task',
    description:
      'Returns the ranked endpoints that can perform a task, with price and how to call them; when nothing on sale fits, an empty list (charged). Free tier: 3 queries per day per wallet, top-1 result only.',
    category: 'agent',
    http: { method: 'POST', path: '/api/v1/paid/route-task', price: '0.01' },
    mcp: { tool: 'route_task', price: '0.01', annotations: READ },
    mode: FIXED,
    rails: X402_BOTH,
    input: routeInput,
    inputExample: routeExample,
    outputExample: routeOutputExample,
    freeTier: { perWalletPerDay: 3, resultLimit: ROUTE_FREE_RESULTS, note: '3 free queries per wallet per day, top-1 result only' },
    run: routeTask(ROUTE_FREE_RESULTS),
  }),
  available({
    id: 'mpp-route',
    title: 'MPP route',
    description:
      'Recommends endpoints for a task, payable via MPP or x402: the free call returns the top-1 recommendation, a paid call returns the ranked top three. When nothing on sale fits, the answer is an empty list (charged).',
    category: 'agent',
    http: { method: 'POST', path: '/api/v1/paid/mpp-route', price: '0.01' },
    mcp: { tool: 'mpp_route', price: '0.01', annotations: READ },
    mode: FIXED,
    rails: X402_AND_MPP,
    input: routeInput,
    inputExample: routeExample,
    outputExample: routeOutputExample,
    freeTier: { resultLimit: ROUTE_FREE_RESULTS, note: 'a free call returns the top-1 recommendation only; paid returns the ranked top three' },
    run: routeTask(ROUTE_FREE_RESULTS),
  }),
  unavailable({
    id: 'agent-preflight-bundle',
    title: 'Agent preflight bundle',
    description:
      "Runs up to five utilities (for example server_time, base_gas_price, base_usdc_balance) in one paid call and returns each utility's result keyed by name.",
    category: 'agent',
    http: { method: 'POST', path: '/api/v1/paid/agent-preflight-bundle', price: '0.005' },
    mcp: { tool: 'agent_preflight_bundle', price: '0.005', annotations: { readOnlyHint: true, openWorldHint: true } },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      utilities: z
        .array(
          z.object({
            name: z.string().min(1).describe('Utility tool name, e.g. "base_gas_price"'),
            arguments: z.record(z.string(), z.unknown()).optional().describe("The utility's input"),
          }),
        )
        .min(1)
        .max(5)
        .describe('Up to five utilities to run'),
    }),
    inputExample: {
      utilities: [
        { name: 'server_time' },
        { name: 'base_gas_price' },
        { name: 'base_usdc_balance', arguments: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' } },
      ],
    },
  }),
  unavailable({
    id: 'agent-return-context',
    title: 'Agent return context',
    description:
      'Returns what changed since an agent last looked: optional cursor-aware delta and trending results, the next cursor, and an evidence hash over the returned data.',
    category: 'agent',
    http: { method: 'POST', path: '/api/v1/paid/agent-return-context', price: '0.005' },
    mcp: { tool: 'agent_return_context', price: '0.005', annotations: READ },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      cursor: z.string().optional().describe('Cursor from the previous call; omit on the first call'),
      include: z
        .array(z.enum(['delta', 'trending']))
        .optional()
        .describe('Result sets to include (default: none, only the cursor and evidence hash)'),
    }),
    inputExample: { include: ['delta', 'trending'] },
  }),
  available({
    id: 'agent-readiness-audit',
    title: 'Agent readiness audit',
    description:
      'Audits how ready a service is for machine buyers and returns a score 0-100 with missing fields, findings and fixes: x402.json (25), openapi.json (25), llms.txt (15), agent card (15), OAuth metadata (10), and a listed paid route answering a valid x402 challenge (10). Charged once the service answers over HTTP, whatever its status; not charged when the URL is refused or does not resolve (422) or the service gives no answer at all (502/504).',
    category: 'agent',
    http: { method: 'POST', path: '/api/v1/paid/agent-readiness-audit', price: '1.00' },
    mcp: { tool: 'agent_readiness_audit', price: '1.00', annotations: { readOnlyHint: true, openWorldHint: true } },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      url: fetchableUrl().describe('Base URL (http or https) of the service to audit'),
    }),
    inputExample: { url: 'https://api.example.com' },
    outputExample: {
      url: 'https://api.example.com',
      score: 85,
      missing: ['llms.txt'],
      findings: [{ severity: 'error', check: 'llms.txt', message: 'no /llms.txt', fix: 'publish a Markdown summary for language models' }],
      fixes: ['publish a Markdown summary for language models'],
      documents: { x402: { url: 'https://api.example.com/.well-known/x402.json', status: 200 } },
      audited_at: '2025-06-01T12:00:00.000Z',
    },
    run: auditAgentReadiness,
  }),
];
