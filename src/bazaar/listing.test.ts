import { describe, expect, it } from 'vitest';
import { classify, CATEGORIES } from './classify.ts';
import { normalizeItem } from './listing.ts';
import { discoveryListUrl, bazaarSettingsFromEnv } from './settings.ts';

const SOURCE = 'https://facilitator.invalid/discovery/resources';

describe('discovery items as listings', () => {
  it('normalizes an x402 v1 item (network names, maxAmountRequired, outputSchema) and a v2 MCP item', () => {
    const v1 = normalizeItem(
      {
        resource: 'https://api.invalid/v1/price',
        type: 'http',
        x402Version: 1,
        accepts: [{ scheme: 'exact', network: 'base', maxAmountRequired: '5000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0xABCDEFabcdef0000000000000000000000000001', description: 'Token price', outputSchema: { input: { type: 'http', method: 'GET' }, output: { price: 'number' } } }],
        lastUpdated: '2025-05-01T00:00:00Z',
        metadata: {},
      },
      SOURCE,
    );
    expect(v1).toMatchObject({ listing: { network: 'eip155:8453', payTo: '0xabcdefabcdef0000000000000000000000000001', priceUsd: 0.005, description: 'Token price', category: 'market-data', lastUpdated: '2025-05-01T00:00:00.000Z', outputSchema: { price: 'number' } } });
    const mcp = normalizeItem(
      {
        resource: 'https://tools.invalid/mcp',
        type: 'mcp',
        x402Version: 2,
        accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: '0x0000000000000000000000000000000000000001', payTo: '0x0000000000000000000000000000000000000002' }],
        extensions: { bazaar: { info: { input: { type: 'mcp', toolName: 'wallet_balance', inputSchema: { type: 'object', properties: { wallet: { type: 'string' } } } } } } },
        quality: { l30DaysTotalCalls: 12, lastCalledAt: '2025-05-02T00:00:00Z' },
      },
      SOURCE,
    );
    expect(mcp).toMatchObject({ listing: { key: 'https://tools.invalid/mcp#wallet_balance', priceUsd: null, calls30d: 12, category: 'onchain-data' } });
  });

  it('calls an item malformed when it has no resource, no usable accept, or a bad amount', () => {
    const accept = { scheme: 'exact', network: 'eip155:8453', amount: '1', asset: '0x01', payTo: '0x02' };
    expect(normalizeItem(null, SOURCE)).toHaveProperty('malformed');
    expect(normalizeItem({ resource: 'https://a.invalid', x402Version: 2, accepts: [] }, SOURCE)).toHaveProperty('malformed');
    expect(normalizeItem({ resource: 'https://a.invalid', x402Version: 2, accepts: [{ ...accept, amount: '-1' }] }, SOURCE)).toEqual({ malformed: 'accepts' });
    expect(normalizeItem({ resource: 'https://a.invalid', x402Version: 2, accepts: [{ ...accept, network: 'not a network' }] }, SOURCE)).toEqual({ malformed: 'accepts' });
    expect(normalizeItem({ resource: 'x'.repeat(5000), x402Version: 2, accepts: [accept] }, SOURCE)).toHaveProperty('malformed');
  });

  it('classifies deterministically into exactly 9 categories', () => {
    expect(CATEGORIES).toHaveLength(9);
    const base = { toolName: null, inputSchema: null, outputSchema: null };
    expect(classify({ ...base, resource: 'https://x.invalid/v1/chat/completions', description: '' })).toBe('inference');
    expect(classify({ ...base, resource: 'https://x.invalid/weather', description: 'Weather for a city' })).toBe('other');
    // A tie (one strong word each: scrape, price) goes to the category listed first.
    expect(classify({ ...base, resource: 'https://x.invalid/scrape/price', description: '' })).toBe('web-data');
  });

  it('settings: defaults per mode, off, and list URLs', () => {
    expect(bazaarSettingsFromEnv({}, 'dev').sources).toEqual(['self']);
    expect(bazaarSettingsFromEnv({}, 'production').sources).toEqual(['https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources']);
    expect(bazaarSettingsFromEnv({ BAZAAR_DISCOVERY_URLS: 'off' }, 'dev').sources).toEqual([]);
    expect(() => bazaarSettingsFromEnv({ BAZAAR_DISCOVERY_URLS: 'ftp://x.invalid' }, 'dev')).toThrow(/http/);
    expect(discoveryListUrl('https://facilitator.invalid/')).toBe('https://facilitator.invalid/discovery/resources');
    expect(discoveryListUrl(SOURCE)).toBe(SOURCE);
  });
});
