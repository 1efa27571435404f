import { z } from 'zod';
import { OPEN_WORLD, fetchableUrl, jsonSchemaObject, product } from '../../kit/index.ts';
import { evaluateEndpoint } from './run.ts';

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

export const evaluationInput = z.object({
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
});

export const evaluationOutput = z.object({
  status: z.int().describe('HTTP status seen from the target'),
  payment_required: z.boolean().describe('Whether the target asked for payment (HTTP 402)'),
  payment_accepted: z.boolean().describe('Whether the 402 carries a well-formed payment challenge a standard client could pay (x402 v1/v2 or MPP); the evaluation never pays'),
  response_valid: z.boolean().describe('Whether the response satisfied the task assertions'),
  latency_ms: z.int().describe('Time to the response, in milliseconds'),
  schema_errors: z.array(z.unknown()).describe('Assertion or schema violations found'),
  failure_reason: z.string().nullable().describe('Why the evaluation failed, or null'),
  tested_at: z.iso.datetime().describe('When the request was made, ISO 8601'),
});

export const endpointTaskEvaluation = product({
  id: 'endpoint-task-evaluation',
  title: 'Endpoint task evaluation',
  description:
    "Makes one bounded request to a target endpoint without paying it and returns its status, payment signals, latency and whether the response meets your assertions; the target's body is not returned. Not charged when the target does not resolve or is refused (422); an endpoint that answers with an error, refuses the connection or times out is a delivered evaluation (`status`, `failure_reason`).",
  price: '0.01',
  mpp: true,
  annotations: OPEN_WORLD,
  input: evaluationInput,
  inputExample: {
    target_url: 'https://api.example.com/api/v1/paid/time',
    method: 'GET',
    task_assertions: { expect_status: 402 },
  },
  output: evaluationOutput,
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
});
