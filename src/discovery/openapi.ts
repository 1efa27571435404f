import type { AvailableProduct } from '../catalogue/types.ts';
import {
  FREE_ENDPOINTS,
  OPENAPI_DOCUMENT_VERSION,
  SERVICE_SUMMARY,
  X402_VERSION,
  describePrice,
  documentUrls,
  inputJsonSchema,
  offeredNetworks,
  outputJsonSchema,
  paymentTerms,
  type DiscoveryContext,
  type JsonSchema,
  type PaymentTerms,
} from './context.ts';
import { OPENAI_CHAT_PATH, OPENAI_MODELS_PATH, openAiDoorProduct } from '../http/openai-wire.ts';

type Components = Record<string, JsonSchema>;

const CATEGORY_DESCRIPTIONS: Record<string, string> = {
  utility: 'Utilities: time, echo, diagnostics, code execution',
  web: 'Web page extraction, search and fetching',
  chain: 'On-chain data: blocks, gas, transfers, wallets, tokens',
  bazaar: 'x402 bazaar market data: listings, prices, sellers, trends',
  text: 'Text processing: classify, summarize, rewrite, extract',
  research: 'Research: company reports, sourced answers, sentiment',
  inference: 'Chat-completion inference over a model catalogue',
  agent: 'Agent routing and readiness tools',
  payments: 'x402 payment tooling: verification, receipts, policies',
  people: 'People and profile search and enrichment',
  market: 'Market data, prices and trading signals',
};

const PAID_PATH_NOTE =
  'Paid per call in USDC over x402 v2: call without payment to get 402 with the PAYMENT-REQUIRED header, pay, then retry with PAYMENT-SIGNATURE.';

/** OpenAPI 3.1.0 description of every available paid HTTP route and the free endpoints. */
export function buildOpenApi(ctx: DiscoveryContext): Record<string, unknown> {
  const urls = documentUrls(ctx);
  const schemas: Components = { ...baseSchemas(ctx) };
  const paths: Record<string, Record<string, unknown>> = {};
  const usedCategories: string[] = [];

  for (const product of ctx.catalogue.available('http')) {
    const http = product.http!;
    const method = http.method.toLowerCase();
    paths[http.path] = { ...paths[http.path], [method]: productOperation(product, ctx, schemas) };
    // A POST route that also takes GET with the same fields as query parameters (proxy-implementation).
    if (http.queryToo) paths[http.path] = { ...paths[http.path], get: productOperation(product, ctx, schemas, 'GET') };
    if (!usedCategories.includes(product.category)) usedCategories.push(product.category);
  }
  for (const endpoint of FREE_ENDPOINTS) {
    paths[endpoint.path] = { get: freeOperation(endpoint) };
  }
  const door = openAiDoorProduct(ctx.catalogue.available('http'));
  if (door) {
    // The OpenAI-compatible door sells the same product: its operation, under the door's path.
    const operation = productOperation(door, ctx, schemas);
    paths[OPENAI_CHAT_PATH] = {
      post: {
        ...operation,
        operationId: 'openaiChatCompletions',
        summary: `OpenAI-compatible chat completions (${door.id}, ${operation.summary})`,
        description: `${operation.description}\n\nOpenAI wire format: works with the official openai client (baseURL ending in /openai/v1) and an x402-paying fetch. Errors other than 402 are OpenAI error objects \`{ error: { message, type, param, code } }\`.`,
      },
    };
    paths[OPENAI_MODELS_PATH] = {
      get: freeOperation({ method: 'GET', path: OPENAI_MODELS_PATH, operationId: 'openaiListModels', summary: 'The model catalogue as an OpenAI model list (`object: "list"`, `data`)', contentType: 'application/json' }),
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: ctx.serviceName,
      version: OPENAPI_DOCUMENT_VERSION,
      summary: SERVICE_SUMMARY,
      description: [
        SERVICE_SUMMARY,
        '',
        'Paid routes live under `/api/v1/paid/`. A call without payment answers `402 Payment Required` with a `PAYMENT-REQUIRED` header ' +
          '(base64 of the JSON `PaymentRequired` object, also sent as the body) listing the accepted payments: scheme, network, amount in atomic ' +
          'USDC units (1 USD = 1,000,000), asset and recipient. Sign a USDC payment for one of them and repeat the call with the ' +
          '`PAYMENT-SIGNATURE` header; a `200` carries the result and a `PAYMENT-RESPONSE` settlement header. Invalid input is rejected with ' +
          '`400`/`413` problem+json before any payment is verified or settled.',
        '',
        `Networks offered: ${offeredNetworks(ctx).join(', ') || 'none configured'}. Each operation's \`x-payment-info\` gives its price and payment options; ` +
          `the payment catalogue is at ${urls.x402}. The same products are MCP tools at ${urls.mcp} (streamable HTTP).`,
      ].join('\n'),
      'x-implementation-version': ctx.version,
    },
    externalDocs: { description: 'Full documentation for agents (llms-full.txt)', url: urls.llmsFull },
    servers: [{ url: ctx.baseUrl }],
    tags: [
      ...usedCategories.map((name) => ({ name, description: CATEGORY_DESCRIPTIONS[name] ?? name })),
      { name: 'discovery', description: 'Free endpoints: health, models and discovery documents' },
    ],
    paths,
    components: {
      schemas,
      parameters: {
        PaymentSignature: {
          name: 'PAYMENT-SIGNATURE',
          in: 'header',
          required: false,
          description: 'x402 v2 payment payload (base64 JSON) for one of the requirements of the 402 answer. Omit it to get the quote.',
          schema: { type: 'string' },
        },
      },
      headers: {
        PaymentRequired: {
          description: 'Base64 of the JSON `PaymentRequired` object (x402 v2); identical to the response body.',
          schema: { type: 'string' },
        },
        PaymentResponse: {
          description: 'Base64 of the JSON x402 settlement response (transaction, network, payer).',
          schema: { type: 'string' },
        },
        RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
      },
      responses: {
        InvalidInput: problemResponse('Invalid input (query, body or JSON). Rejected before payment: nothing is charged.'),
        PayloadTooLarge: problemResponse('The request body is larger than the limit. Nothing is charged.'),
        InputRejected: problemResponse('The product rejected the input (e.g. unknown symbol, unreachable target). The payment is not settled.'),
        ProductFailed: problemResponse('The product could not produce a result. The payment is not settled.'),
        ServiceUnavailable: {
          ...problemResponse(
            'The payment facilitator is unreachable, or a settlement outcome is not yet known. Nothing is charged (or the payment is reconciled); retry after the given delay.',
          ),
          headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
        },
      },
    },
  };
}

function productOperation(product: AvailableProduct, ctx: DiscoveryContext, schemas: Components, method = product.http!.method): Record<string, unknown> {
  const http = product.http!;
  const terms = paymentTerms(product, 'http', ctx);
  const input = embed(inputJsonSchema(product), `${product.id}.input`, schemas);
  const parameters: unknown[] = [{ $ref: '#/components/parameters/PaymentSignature' }];
  const operation: Record<string, unknown> = {
    operationId: method === http.method ? product.id : `${product.id}-${method.toLowerCase()}`,
    summary: `${product.title} (${describePrice(terms)})`,
    description: `${product.description}\n\nPrice: ${describePrice(terms)} per call in USDC (${terms.amount} atomic units). ${PAID_PATH_NOTE}`,
    tags: [product.category],
  };

  if (method === 'GET') {
    parameters.unshift(...queryParameters(input.schema));
  } else {
    const required = Array.isArray(input.schema.required) && input.schema.required.length > 0;
    operation.requestBody = {
      required,
      content: { 'application/json': { schema: input.ref, ...(product.inputExample ? { example: product.inputExample } : {}) } },
    };
  }
  operation.parameters = parameters;

  const output = outputJsonSchema(product);
  const outputSchema = output ? embed(output, `${product.id}.output`, schemas).ref : { type: 'object' };
  const responses: Record<string, unknown> = {
    '200': {
      description: 'The result. The PAYMENT-RESPONSE header carries the settlement receipt.',
      headers: { 'PAYMENT-RESPONSE': { $ref: '#/components/headers/PaymentResponse' } },
      content: {
        'application/json': {
          schema: outputSchema,
          ...(product.outputExample !== undefined ? { example: product.outputExample } : {}),
        },
      },
    },
    '402': {
      description: `Payment required: ${describePrice(terms)} in USDC via x402 v2 on ${terms.networks.join(', ') || 'no configured network'}. The quote is in the PAYMENT-REQUIRED header and the body.`,
      headers: { 'PAYMENT-REQUIRED': { $ref: '#/components/headers/PaymentRequired' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/PaymentRequired' } } },
    },
    '400': { $ref: '#/components/responses/InvalidInput' },
  };
  if (method === 'POST') responses['413'] = { $ref: '#/components/responses/PayloadTooLarge' };
  responses['422'] = { $ref: '#/components/responses/InputRejected' };
  responses['502'] = { $ref: '#/components/responses/ProductFailed' };
  responses['503'] = { $ref: '#/components/responses/ServiceUnavailable' };
  operation.responses = responses;
  operation['x-payment-info'] = paymentInfo(product, terms);
  return operation;
}

/** The `x-payment-info` extension: price and payment options of one operation. */
function paymentInfo(product: AvailableProduct, terms: PaymentTerms): Record<string, unknown> {
  return {
    x402Version: X402_VERSION,
    price: terms.price,
    currency: 'USD',
    amount: terms.amount,
    mode: terms.mode,
    ...(terms.maximumAuthorization ? { maximumAuthorization: terms.maximumAuthorization, maximumAuthorizationAmount: terms.maximumAuthorizationAmount } : {}),
    rails: terms.rails,
    schemes: terms.schemes,
    networks: terms.networks,
    ...(terms.asset ? { asset: terms.asset } : {}),
    ...(terms.payTo ? { payTo: terms.payTo } : {}),
    accepts: terms.accepts,
    ...(terms.pricesByInput ? { pricesByInput: terms.pricesByInput } : {}),
    ...(product.mcp ? { mcpTool: product.mcp.tool } : {}),
  };
}

/** Query parameters of a GET product from its input schema; a record schema becomes one free-form parameter. */
function queryParameters(schema: JsonSchema): unknown[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const parameters: unknown[] = Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
  const extra = schema.additionalProperties;
  if (parameters.length === 0 && extra !== undefined && extra !== false) {
    parameters.push({
      name: 'params',
      in: 'query',
      required: false,
      description: typeof schema.description === 'string' ? schema.description : 'Any query parameters',
      style: 'form',
      explode: true,
      schema: { type: 'object', additionalProperties: extra === true ? {} : extra },
    });
  }
  return parameters;
}

function freeOperation(endpoint: (typeof FREE_ENDPOINTS)[number]): Record<string, unknown> {
  let schema: JsonSchema;
  switch (endpoint.path) {
    case '/health':
      schema = { $ref: '#/components/schemas/Health' };
      break;
    case '/api/v1/models':
      schema = { $ref: '#/components/schemas/ModelList' };
      break;
    default:
      schema = endpoint.contentType === 'application/json' ? { type: 'object' } : { type: 'string' };
  }
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description: `${endpoint.summary}. Free: no payment needed.`,
    tags: ['discovery'],
    responses: {
      '200': { description: endpoint.summary, content: { [endpoint.contentType]: { schema } } },
    },
  };
}

function problemResponse(description: string): Record<string, unknown> {
  return { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
}

function baseSchemas(ctx: DiscoveryContext): Components {
  const networks = offeredNetworks(ctx);
  return {
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details.',
      properties: {
        type: { type: 'string', description: 'urn:percall:problem:<code>' },
        code: { type: 'string', description: 'Short stable error code' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        errors: {
          type: 'array',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, message: { type: 'string' } },
            required: ['field', 'message'],
          },
        },
      },
      required: ['type', 'code', 'title', 'status'],
    },
    PaymentRequirements: {
      type: 'object',
      description: 'One accepted way to pay (x402 v2).',
      properties: {
        scheme: { type: 'string', examples: ['exact'] },
        network: { type: 'string', description: 'CAIP-2 network id', ...(networks.length ? { examples: networks } : {}) },
        asset: { type: 'string', description: 'Token contract (USDC)' },
        amount: { type: 'string', description: 'Atomic units (USDC has 6 decimals: 1 USD = 1000000)', pattern: '^[0-9]+$' },
        payTo: { type: 'string', description: 'Recipient address' },
        maxTimeoutSeconds: { type: 'integer' },
        extra: { type: 'object', description: 'Scheme data, e.g. the EIP-712 token domain `name` and `version`' },
      },
      required: ['scheme', 'network', 'asset', 'amount', 'payTo', 'maxTimeoutSeconds'],
    },
    PaymentRequired: {
      type: 'object',
      description: 'The x402 v2 payment challenge, sent as the 402 body and (base64) in the PAYMENT-REQUIRED header.',
      properties: {
        x402Version: { type: 'integer', const: X402_VERSION },
        error: { type: 'string', description: 'Why the previous payment or input was not accepted, if any' },
        resource: {
          type: 'object',
          properties: {
            url: { type: 'string', format: 'uri' },
            description: { type: 'string' },
            mimeType: { type: 'string' },
            serviceName: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
          },
          required: ['url'],
        },
        accepts: { type: 'array', items: { $ref: '#/components/schemas/PaymentRequirements' } },
        extensions: { type: 'object', description: 'Protocol extensions, e.g. `bazaar` with the input schema and an output example' },
      },
      required: ['x402Version', 'resource', 'accepts'],
    },
    Health: {
      type: 'object',
      properties: { status: { type: 'string', examples: ['ok'] }, uptime: { type: 'number', description: 'Seconds since start' } },
      required: ['status', 'uptime'],
    },
    Model: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'Value to pass as `model`' },
        name: { type: 'string' },
        provider: { type: 'string' },
        context_window: { type: 'integer' },
        max_output_tokens: { type: 'integer' },
        description: { type: 'string' },
      },
      required: ['id', 'name', 'provider', 'context_window', 'max_output_tokens', 'description'],
    },
    ModelList: {
      type: 'object',
      properties: { models: { type: 'array', items: { $ref: '#/components/schemas/Model' } }, count: { type: 'integer' } },
      required: ['models', 'count'],
    },
  };
}

interface Embedded {
  /** The schema with local references rewritten (its `$defs` moved into components). */
  schema: JsonSchema;
  /** What to embed: the schema itself, or a `$ref` to it when it refers to itself. */
  ref: JsonSchema;
}

/**
 * Makes a standalone JSON Schema embeddable in the OpenAPI document: `$defs` become component schemas
 * named `<name>.<def>`, `#/$defs/…` and `#` references are rewritten to point at them.
 */
function embed(schema: JsonSchema, name: string, components: Components): Embedded {
  const base = componentName(name);
  const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  const { $defs: _defs, ...root } = schema;
  let selfReferenced = false;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        if (value === '#') {
          selfReferenced = true;
          out[key] = `#/components/schemas/${base}`;
        } else if (value.startsWith('#/$defs/')) {
          out[key] = `#/components/schemas/${componentName(`${name}.${decodePointer(value.slice('#/$defs/'.length))}`)}`;
        } else {
          out[key] = value;
        }
      } else {
        out[key] = rewrite(value);
      }
    }
    return out;
  };
  for (const [key, def] of Object.entries(defs)) components[componentName(`${name}.${key}`)] = rewrite(def) as JsonSchema;
  const rewritten = rewrite(root) as JsonSchema;
  if (selfReferenced) {
    components[base] = rewritten;
    return { schema: rewritten, ref: { $ref: `#/components/schemas/${base}` } };
  }
  return { schema: rewritten, ref: rewritten };
}

function componentName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

function decodePointer(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
