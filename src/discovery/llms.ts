import { atomicToUsd } from '../money.ts';
import type { AvailableProduct } from '../catalogue/types.ts';
import { MCP_MANIFEST_VERSION } from '../version.ts';
import { OPENAI_BASE_PATH, OPENAI_CHAT_PATH, OPENAI_MODELS_PATH, openAiDoorProduct } from '../http/openai-wire.ts';
import {
  FREE_ENDPOINTS,
  SERVICE_SUMMARY,
  describePrice,
  documentUrls,
  inputJsonSchema,
  oneLine,
  outputJsonSchema,
  paymentTerms,
  type DiscoveryContext,
} from './context.ts';

/** `/llms.txt`: what the service is, how to pay, where the documents are, and every paid route and tool. */
export function buildLlmsTxt(ctx: DiscoveryContext): string {
  return [...header(ctx), ...paidRoutes(ctx), ...mcpSection(ctx), ...freeSection(ctx), ...optionalSection(ctx)].join('\n');
}

/** `/llms-full.txt`: everything in llms.txt plus, per product, schemas, examples, prices and error behaviour. */
export function buildLlmsFullTxt(ctx: DiscoveryContext): string {
  return [
    ...header(ctx),
    ...paidRoutes(ctx),
    ...mcpSection(ctx),
    ...freeSection(ctx),
    ...errorSection(),
    ...productSections(ctx),
    ...savedQueriesSection(ctx),
    ...optionalSection(ctx),
  ].join('\n');
}

function header(ctx: DiscoveryContext): string[] {
  const urls = documentUrls(ctx);
  const lines = [
    `# ${ctx.serviceName}`,
    '',
    `> ${SERVICE_SUMMARY}`,
    '',
    `API base URL: ${ctx.baseUrl}. Paid HTTP routes live under \`/api/v1/paid/\`; the same products are MCP tools at ${urls.mcp} (streamable HTTP). ` +
      'There are no accounts and no API keys: every paid call carries its own payment.',
    '',
    '## How to pay (x402 v2)',
    '',
    '1. Call a paid route without payment. It answers `402 Payment Required` with a `PAYMENT-REQUIRED` header: base64 of the JSON `PaymentRequired` object (`x402Version: 2`, `resource`, `accepts`), which is also the response body. Each `accepts` entry gives `scheme`, `network`, `amount` (atomic USDC units: 1 USD = 1,000,000), `asset` and `payTo`.',
    '2. Pay in USDC: sign a payment for one `accepts` entry with any x402 v2 client. Scheme `exact` on EVM is an EIP-3009 `transferWithAuthorization` for the USDC token; on Solana a partially signed SPL transfer whose fee payer is `extra.feePayer`. Scheme `upto` (EVM, metered products such as inference) is a Permit2 authorization of up to `amount`: you are charged the actual amount, never more; it needs a one-time ERC-20 approval of the canonical Permit2 contract (otherwise the retry fails with `permit2_allowance_required`).',
    '3. Retry the same request with the header `PAYMENT-SIGNATURE: <base64 payment payload>`.',
    '4. Receive `200` with the result and a `PAYMENT-RESPONSE` header (the settlement receipt). Settlement happens only after the product succeeded; otherwise nothing is charged.',
    '',
    'Invalid input is rejected with `400` (or `413` for an oversized body) as `application/problem+json` before any payment is verified, so it is never charged. A 402 for a request whose input would be rejected says so in its `error` field.',
    '',
    'Networks offered:',
    '',
  ];
  if (ctx.offers.length === 0) lines.push('- none configured');
  for (const offer of ctx.offers) {
    const schemes = offer.family === 'evm' ? '`exact` (and `upto` for metered products)' : '`exact`';
    const minimum = offer.minimumAmount > 0n ? `; routes priced under ${atomicToUsd(offer.minimumAmount)} USD are not offered here (the facilitator's minimum)` : '';
    lines.push(`- \`${offer.network}\`: USDC \`${offer.asset}\`, paid to \`${offer.payTo}\`, scheme ${schemes}${minimum}`);
  }
  if (ctx.mpp) {
    lines.push(
      '',
      `MPP (Machine Payments Protocol) is a second rail on the products marked \`mpp\`: the same 402 also carries \`WWW-Authenticate: Payment\` challenges (methods: ${ctx.mpp.methods.join(', ')}); retry with \`Authorization: Payment <credential>\` (any mppx client) and receive \`Payment-Receipt\`. MPP errors are problem details with paymentauth.org types.`,
    );
  }
  lines.push(
    '',
    '## Discovery documents',
    '',
    `- [OpenAPI 3.1 description](${urls.openapi}): every paid route with its input schema, responses and \`x-payment-info\` (price, mode, networks)`,
    `- [x402 payment catalogue](${urls.x402}): every paid route and MCP tool with price, atomic amount, networks, asset and recipient`,
    `- [Agent card](${urls.agentCard}): A2A-style agent card, one skill per product (also at ${urls.agentJson})`,
    `- [Full documentation](${urls.llmsFull}): this document plus every product's input schema, output example and prices`,
    `- [Model catalogue](${urls.models}): the models the inference products accept`,
    '',
  );
  return lines;
}

function paidRoutes(ctx: DiscoveryContext): string[] {
  const products = ctx.catalogue.available('http');
  const lines = ['## Paid HTTP routes', ''];
  if (products.length === 0) lines.push('- none available yet');
  for (const product of products) {
    const http = product.http!;
    const terms = paymentTerms(product, 'http', ctx);
    lines.push(`- [${http.method} ${http.path}](${ctx.baseUrl}${http.path}): ${describePrice(terms)}. ${oneLine(product.description)}`);
  }
  lines.push('', ...openAiSection(ctx));
  return lines;
}

/** The OpenAI-compatible door, when its product is on sale here. */
function openAiSection(ctx: DiscoveryContext): string[] {
  const product = openAiDoorProduct(ctx.catalogue.available('http'));
  if (!product) return [];
  const terms = paymentTerms(product, 'http', ctx);
  return [
    '## OpenAI-compatible door',
    '',
    `- [POST ${OPENAI_CHAT_PATH}](${ctx.baseUrl}${OPENAI_CHAT_PATH}): the \`${product.id}\` product in the OpenAI chat-completions wire format (streaming too), ${describePrice(terms)}. Use the official \`openai\` client with \`baseURL: '${ctx.baseUrl}${OPENAI_BASE_PATH}'\` and an x402-paying \`fetch\` (\`wrapFetchWithPayment\` from \`@x402/fetch\`); the 402 is the x402 challenge, other errors are OpenAI error objects.`,
    `- [GET ${OPENAI_MODELS_PATH}](${ctx.baseUrl}${OPENAI_MODELS_PATH}): the model catalogue as an OpenAI model list, free`,
    '',
  ];
}

function mcpSection(ctx: DiscoveryContext): string[] {
  const urls = documentUrls(ctx);
  const products = ctx.catalogue.available('mcp');
  const lines = [
    '## MCP tools',
    '',
    `MCP server: ${urls.mcp} (transport: streamable HTTP, stateless, tool manifest version ${MCP_MANIFEST_VERSION}). \`initialize\` and \`tools/list\` are free; \`tools/call\` is paid like the HTTP route (x402 MCP transport, tool-result binding): an unpaid call returns a result with \`isError: true\` whose \`structuredContent\` (and \`content[0].text\`) is the \`PaymentRequired\` object; retry with the \`PaymentPayload\` in \`params._meta["x402/payment"]\`; the paid result carries the settlement in \`_meta["x402/payment-response"]\`. Tool prices can differ from HTTP prices; each surface's price stands for itself.`,
    '',
    `- Free tool \`search_tools\` (arguments \`query\`, optional \`category\`, \`limit\`): finds tools by need, with price and input schema. Some MCP clients pass only the first 40 tools to the model; search instead.`,
    `- Category filter: connect to \`${urls.mcp}?categories=bazaar,chain\` (comma-separated categories) to list only those tools. Categories: ${[...new Set(ctx.catalogue.products.map((p) => p.category))].join(', ')}.`,
    '- Free tiers: a tool with a free tier adds a `sign-in-with-x` challenge (x402 Sign-In-With-X, SIWE) to its payment requirements. Sign it with your wallet and send the signed payload in `params._meta["sign-in-with-x"]` (HTTP: the `SIGN-IN-WITH-X` header, base64) instead of a payment. The proof must be fresh (5 minutes), for this host and this tool, and is single-use; quotas count per proven wallet per UTC day.',
    '',
  ];
  if (products.length === 0) lines.push('- none available yet');
  for (const product of products) {
    const terms = paymentTerms(product, 'mcp', ctx);
    lines.push(`- \`${product.mcp!.tool}\`: ${describePrice(terms)}. ${oneLine(product.title)}${product.http ? ` (also \`${product.http.method} ${product.http.path}\`)` : ''}`);
  }
  lines.push('');
  return lines;
}

function freeSection(ctx: DiscoveryContext): string[] {
  const lines = ['## Free endpoints', ''];
  for (const endpoint of FREE_ENDPOINTS) {
    lines.push(`- [${endpoint.method} ${endpoint.path}](${ctx.baseUrl}${endpoint.path}): ${endpoint.summary}`);
  }
  lines.push('');
  return lines;
}

function optionalSection(ctx: DiscoveryContext): string[] {
  const urls = documentUrls(ctx);
  return ['## Optional', '', `- [Health](${urls.health}): liveness and uptime`, `- [llms-full.txt](${urls.llmsFull}): full documentation`, ''];
}

function errorSection(): string[] {
  return [
    '## Errors',
    '',
    'Errors other than 402 are `application/problem+json` (RFC 9457) with `type`, `code`, `title`, `status`, `detail` and, for input errors, `errors: [{field, message}]`.',
    '',
    '- `402`: no or invalid payment; the body and `PAYMENT-REQUIRED` header carry the requirements (and `error` says why a payment was refused).',
    '- `400`: invalid input (query, body or malformed JSON). Never charged.',
    '- `413`: request body too large. Never charged.',
    '- `422`: the product rejected the input (for example an unknown symbol or an unreachable target). The payment is not settled.',
    '- `501`: the product is declared but not available yet. Never charged.',
    '- `502`: the product failed to produce a result. The payment is not settled.',
    '- `503` with `Retry-After`: the payment facilitator is unreachable (nothing charged), or a settlement outcome is not yet known (no result released; the payment is reconciled). Retry after the given seconds.',
    '',
  ];
}

function productSections(ctx: DiscoveryContext): string[] {
  const lines = ['## Products', ''];
  for (const product of ctx.catalogue.available()) lines.push(...productSection(product, ctx));
  return lines;
}

function productSection(product: AvailableProduct, ctx: DiscoveryContext): string[] {
  const lines = [`### ${product.title} (\`${product.id}\`)`, '', oneLine(product.description), ''];
  if (product.http) {
    const terms = paymentTerms(product, 'http', ctx);
    lines.push(`- HTTP: \`${product.http.method} ${ctx.baseUrl}${product.http.path}\`, ${describePrice(terms)} per call (${terms.amount} atomic USDC)`);
  }
  if (product.mcp) {
    const terms = paymentTerms(product, 'mcp', ctx);
    lines.push(`- MCP tool: \`${product.mcp.tool}\`, ${describePrice(terms)} per call (${terms.amount} atomic USDC)`);
  }
  const anyTerms = paymentTerms(product, product.http ? 'http' : 'mcp', ctx);
  lines.push(`- Price mode: \`${anyTerms.mode}\`${anyTerms.maximumAuthorization ? `, maximum authorization ${anyTerms.maximumAuthorization} USD` : ''}`);
  const x402Line = anyTerms.accepts.length ? `x402 (${anyTerms.schemes.join(', ')}) on ${anyTerms.networks.join(', ')}` : '';
  const mppLine = anyTerms.rails.includes('mpp') ? 'MPP (`Authorization: Payment`)' : '';
  lines.push(`- Payment: ${[x402Line, mppLine].filter(Boolean).join('; ') || 'no payment option configured on this instance'}`);
  for (const excluded of anyTerms.excludedNetworks ?? []) lines.push(`- Not offered on \`${excluded.network}\` (${excluded.scheme}): ${excluded.detail}`);
  lines.push(`- Category: ${product.category}`);
  if (product.freeTier) {
    const quota = product.freeTier.perWalletPerDay !== undefined ? `${product.freeTier.perWalletPerDay} free calls per wallet per day; ` : '';
    lines.push(`- Free tier: ${quota}${oneLine(product.freeTier.note)}`);
  }
  for (const door of product.freeDoors ?? []) {
    lines.push(`- Free door: \`${door.method} ${ctx.baseUrl}${door.path}\`: ${oneLine(door.note)}`);
  }
  lines.push('');

  const inputKind = product.http?.method === 'GET' ? 'query parameters, strings on the wire' : 'JSON request body';
  const sameForTool = product.mcp && product.http ? '; the same schema is the MCP tool input' : '';
  lines.push(`Input (${product.http ? inputKind : 'MCP tool arguments'}${sameForTool}), JSON Schema:`, '');
  lines.push(...jsonBlock(inputJsonSchema(product)));
  if (product.inputExample) lines.push('Example input:', '', ...jsonBlock(product.inputExample));
  const output = outputJsonSchema(product);
  if (output) lines.push('Output, JSON Schema:', '', ...jsonBlock(output));
  if (product.outputExample !== undefined) lines.push('Output example:', '', ...jsonBlock(product.outputExample));
  lines.push(
    `Errors: ${product.http?.method === 'POST' ? '`400`/`413`' : '`400`'} problem+json for invalid input (never charged); \`422\`/\`502\` when the product cannot serve the call (not settled); \`503\` with \`Retry-After\` when the facilitator is unreachable (nothing charged).`,
    '',
  );
  return lines;
}

/** analytics-query's saved queries, by number: `{"query": "<number>"}` runs one. */
function savedQueriesSection(ctx: DiscoveryContext): string[] {
  const product = ctx.catalogue.available().find((p) => p.id === 'analytics-query');
  if (!product?.http || !ctx.savedQueries) return [];
  const { queries } = ctx.savedQueries();
  const lines = [
    '## Saved analytics queries',
    '',
    `Run one with \`POST ${ctx.baseUrl}${product.http.path}\` and \`{"query": "<number>"}\` (same price as any query). The list as JSON: \`GET ${ctx.baseUrl}/api/v1/analytics-query/queries\`.`,
    '',
  ];
  if (queries.length === 0) lines.push('- none saved yet', '');
  for (const q of queries) {
    lines.push(`### ${q.id}. ${oneLine(q.name)}`, '');
    if (q.description) lines.push(oneLine(q.description), '');
    lines.push('```sql', q.sql, '```', '');
  }
  return lines;
}

function jsonBlock(value: unknown): string[] {
  return ['```json', JSON.stringify(value, null, 2), '```', ''];
}
