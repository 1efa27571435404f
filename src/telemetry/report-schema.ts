import { TOOL_BLOCKS_SCHEMA } from './tool-usage.ts';

/** JSON Schema (draft 2020-12) of the observatory report, published beside it. */
const count = { type: 'integer', minimum: 0 } as const;
const usdc = { type: 'number', minimum: 0 } as const;
const keyCounts = {
  type: 'array',
  items: { type: 'object', required: ['key', 'count'], additionalProperties: false, properties: { key: { type: 'string' }, count } },
} as const;

function operatorFigures(named: boolean) {
  const figures = { upstream_payments: count, upstream_spend_usdc: usdc, revenue_usdc: usdc, margin_usdc: { type: 'number' } } as const;
  return {
    type: 'object',
    additionalProperties: false,
    required: [...(named ? ['product'] : []), 'upstream_payments', 'upstream_spend_usdc', 'revenue_usdc', 'margin_usdc'],
    properties: named ? { product: { type: 'string' }, ...figures } : figures,
  } as const;
}

export const REPORT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:percall:observatory-report',
  title: 'Public telemetry report',
  type: 'object',
  additionalProperties: false,
  required: [
    'service',
    'observatory',
    'wallet',
    'network',
    'note',
    'observing_since',
    'updated_at',
    'totals',
    'payment_failure_reasons',
    'payment_failure_networks',
    'self_test',
    'endpoints',
    'geo',
    'tools',
    'operator_payments',
  ],
  properties: {
    service: { type: 'string' },
    observatory: { type: 'string' },
    wallet: { type: 'string', description: 'The receiving address' },
    network: { type: 'string', pattern: '^eip155:[0-9]+$' },
    note: { type: 'string' },
    observing_since: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    totals: {
      type: 'object',
      additionalProperties: false,
      required: ['challenges', 'paid_calls', 'payment_failures', 'revenue_usdc', 'unique_payers'],
      properties: { challenges: count, paid_calls: count, payment_failures: count, revenue_usdc: usdc, unique_payers: count },
    },
    payment_failure_reasons: {
      ...keyCounts,
      items: {
        ...keyCounts.items,
        properties: {
          key: { enum: ['payment_verification_failed', 'payment_processing_error', 'payment_requirement_not_accepted', 'settlement_failed'] },
          count,
        },
      },
    },
    payment_failure_networks: keyCounts,
    self_test: { type: 'object', additionalProperties: false, required: ['calls', 'usdc'], properties: { calls: count, usdc } },
    endpoints: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['endpoint', 'challenges', 'paid_calls', 'revenue_usdc', 'self_test_calls'],
        properties: {
          endpoint: { type: 'string', description: 'Method and path, or `tool <name>` for MCP tools' },
          challenges: count,
          paid_calls: count,
          revenue_usdc: usdc,
          self_test_calls: count,
          payment_failures: count,
        },
      },
    },
    operator_payments: {
      type: 'object',
      description: "Products paying upstream x402 sellers from the operator's wallet: upstream payments, spend, what callers paid for them, and the margin (negative when the operator paid more)",
      additionalProperties: false,
      required: ['totals', 'products'],
      properties: {
        totals: operatorFigures(false),
        products: { type: 'array', items: operatorFigures(true) },
      },
    },
    tools: TOOL_BLOCKS_SCHEMA,
    geo: {
      type: 'object',
      additionalProperties: false,
      required: ['countries'],
      properties: { countries: { ...keyCounts, items: { ...keyCounts.items, properties: { key: { type: 'string', pattern: '^([A-Z]{2}|unknown)$' }, count } } } },
    },
  },
} as const;
