import { z } from 'zod';
import { READ_EXTERNAL, fetchableUrl, product } from '../../kit/index.ts';
import { auditAgentReadiness, readinessAudit } from './run.ts';

export const agentReadinessAudit = product({
  id: 'agent-readiness-audit',
  title: 'Agent readiness audit',
  description:
    'Audits how ready a service is for machine buyers and returns a score 0-100 with missing fields, findings and fixes: x402.json (25), openapi.json (25), llms.txt (15), agent card (15), OAuth metadata (10), and a listed paid route answering a valid x402 challenge (10). Charged once the service answers over HTTP, whatever its status; not charged when the URL is refused or does not resolve (422) or the service gives no answer at all (502/504).',
  price: '1.00',
  annotations: READ_EXTERNAL,
  input: z.object({
    url: fetchableUrl().describe('Base URL (http or https) of the service to audit'),
  }),
  inputExample: { url: 'https://api.example.com' },
  output: readinessAudit,
  outputExample: {
    url: 'https://api.example.com',
    score: 85,
    missing: ['llms.txt'],
    findings: [{ severity: 'error', check: 'llms.txt', message: 'no /llms.txt', fix: 'publish a Markdown summary for language models' }],
    fixes: ['publish a Markdown summary for language models'],
    documents: { x402: { url: 'https://api.example.com/.well-known/x402.json', status: 200 } },
    audited_at: '2025-06-01T12:00:00.000Z',
  },
  publishOutputSchema: false,
  run: auditAgentReadiness,
});
