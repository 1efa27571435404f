/**
 * The category of a listing: exactly 9, by a deterministic keyword classifier over what the listing
 * publishes. The words are taken from the resource's path (and host's first label), the MCP tool name,
 * the description, and the property names of its input and output schemas, split on anything that
 * is not a letter or digit and lowercased. Each category has a keyword list; a word of the path or
 * tool name that is a keyword scores 2, a word of the description or schemas scores 1. The category
 * with the highest score wins; a tie goes to the category listed first below; no score at all is
 * `other`. Same listing, same category, always.
 */

export const CATEGORIES = ['inference', 'web-data', 'onchain-data', 'market-data', 'payments', 'agent-tools', 'media-text', 'people-business', 'other'] as const;
export type Category = (typeof CATEGORIES)[number];

/** What each category holds, for documentation (llms-full.txt, README). */
export const CATEGORY_NOTES: Record<Category, string> = {
  inference: 'LLM and model inference: chat, completion, embeddings, generation',
  'web-data': 'web pages and search: scraping, extraction, crawling, screenshots',
  'onchain-data': 'blockchain data: wallets, tokens, transactions, blocks, DeFi',
  'market-data': 'prices and markets: quotes, trading signals, equities, forex',
  payments: 'payment infrastructure: x402, facilitators, settlements, receipts',
  'agent-tools': 'agent utilities: routing, MCP, workflows, automation',
  'media-text': 'text and media processing: summaries, translation, images, audio, documents',
  'people-business': 'people and companies: profiles, enrichment, contacts, verification',
  other: 'everything without a keyword of the categories above (utilities, weather, …)',
};

const KEYWORDS: Record<Exclude<Category, 'other'>, readonly string[]> = {
  inference: ['llm', 'gpt', 'chat', 'completion', 'completions', 'inference', 'model', 'models', 'embedding', 'embeddings', 'prompt', 'claude', 'openai', 'ai', 'generate', 'generation'],
  'web-data': ['web', 'scrape', 'scraper', 'scraping', 'extract', 'extraction', 'crawl', 'crawler', 'page', 'pages', 'url', 'urls', 'html', 'browser', 'screenshot', 'search', 'website'],
  'onchain-data': ['wallet', 'wallets', 'token', 'tokens', 'onchain', 'chain', 'block', 'blocks', 'transaction', 'transactions', 'tx', 'defi', 'dex', 'swap', 'swaps', 'nft', 'evm', 'solana', 'gas', 'balance', 'holders', 'contract'],
  'market-data': ['price', 'prices', 'market', 'markets', 'trading', 'trade', 'signal', 'signals', 'stock', 'stocks', 'equity', 'forex', 'ohlc', 'ticker', 'quote', 'quotes', 'sentiment'],
  payments: ['x402', 'payment', 'payments', 'pay', 'facilitator', 'settle', 'settlement', 'invoice', 'receipt', 'mpp', 'bazaar', 'listing', 'listings', 'usdc'],
  'agent-tools': ['agent', 'agents', 'mcp', 'tool', 'tools', 'route', 'routing', 'workflow', 'automation', 'preflight', 'context'],
  'media-text': ['summarize', 'summary', 'translate', 'translation', 'rewrite', 'text', 'image', 'images', 'audio', 'video', 'pdf', 'ocr', 'speech', 'tts', 'transcribe', 'classify', 'keywords'],
  'people-business': ['people', 'person', 'profile', 'profiles', 'company', 'companies', 'business', 'email', 'phone', 'lead', 'leads', 'enrich', 'enrichment', 'kyc', 'identity', 'lei'],
};

/** What the classifier reads from a listing. */
export interface Classifiable {
  resource: string;
  toolName: string | null;
  description: string;
  inputSchema: unknown;
  outputSchema: unknown;
}

export function classify(listing: Classifiable): Category {
  const strong = [...words(pathWords(listing.resource)), ...words(listing.toolName ?? '')];
  const weak = [...words(listing.description), ...schemaWords(listing.inputSchema), ...schemaWords(listing.outputSchema)];
  let best: Category = 'other';
  let bestScore = 0;
  for (const category of CATEGORIES) {
    if (category === 'other') continue;
    const keywords = new Set(KEYWORDS[category]);
    const score = strong.filter((w) => keywords.has(w)).length * 2 + weak.filter((w) => keywords.has(w)).length;
    if (score > bestScore) {
      best = category;
      bestScore = score;
    }
  }
  return best;
}

function words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

/** The path of a URL (the part that names the service), or the text itself when it is not a URL. */
function pathWords(resource: string): string {
  try {
    const url = new URL(resource);
    return `${url.hostname.split('.')[0] ?? ''} ${url.pathname}`;
  } catch {
    return resource;
  }
}

/** Property names of a JSON Schema, a few levels deep and bounded. */
function schemaWords(schema: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 4 || out.length > 200 || schema === null || typeof schema !== 'object') return out;
  const properties = (schema as { properties?: unknown }).properties;
  if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
    for (const [name, child] of Object.entries(properties)) {
      out.push(...words(name.replace(/([a-z])([A-Z])/g, '$1 $2')));
      schemaWords(child, depth + 1, out);
    }
  }
  const items = (schema as { items?: unknown }).items;
  if (items) schemaWords(items, depth + 1, out);
  return out;
}
