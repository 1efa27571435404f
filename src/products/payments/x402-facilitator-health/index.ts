/**
 * x402_facilitator_health: probes an x402 facilitator through the safe fetcher (never paying, never
 * sending a payment): `GET /supported` (kinds, extensions, signers), its latency, whether it is
 * served over TLS, the x402 versions it speaks, and whether its `/.well-known/x402` manifest (where
 * it publishes one) lists the same kinds. `status`:
 * - `down`: `/supported` gave no answer, a non-2xx answer, or no valid list of kinds;
 * - `degraded`: it answered, but slowly (over 1.5 s), over plain HTTP, with malformed kinds, or with a
 *   manifest that disagrees with `/supported`;
 * - `healthy`: none of these. `reasons` says which.
 * A facilitator that is down is the answer the caller paid for (charged); a URL that is malformed,
 * refused by the address policy or whose name does not resolve is 422 (field `facilitator_url`).
 */
import { z } from 'zod';
import { ProductInputError, READ_EXTERNAL, fetchFailure, fetchableUrl, isCallerTarget, product, type ProductContext } from '../../kit/index.ts';
import { SafeFetchError, type SafeResponse } from '../../../providers/safe-fetch.ts';

/** An answer slower than this makes a facilitator `degraded`. */
export const SLOW_MS = 1_500;

const kind = z.object({ x402Version: z.int(), scheme: z.string().min(1), network: z.string().min(1), extra: z.record(z.string(), z.unknown()).optional() });
const supportedShape = z.object({ kinds: z.array(z.unknown()), extensions: z.array(z.string()).optional(), signers: z.record(z.string(), z.array(z.string())).optional() });

const kindOut = z.object({ x402_version: z.int().describe('x402 protocol version of the kind'), scheme: z.string().describe('Payment scheme, e.g. exact'), network: z.string().describe('CAIP-2 network') });

export const x402FacilitatorHealth = product({
  id: 'x402-facilitator-health',
  title: 'x402 facilitator health',
  description:
    'Checks an x402 facilitator without paying it: whether /supported answers, its latency, the kinds (schemes and networks), extensions and signers it supports, TLS and protocol versions, whether its /.well-known/x402 manifest agrees, and a status healthy, degraded or down with the reasons.',
  method: 'GET',
  price: '0.003',
  annotations: READ_EXTERNAL,
  input: z.object({
    facilitator_url: fetchableUrl().optional().describe("Facilitator base URL (default: this service's facilitator)"),
  }),
  inputExample: { facilitator_url: 'https://facilitator.example.com' },
  output: z.object({
    facilitator_url: z.string().describe('The facilitator probed (its base URL)'),
    status: z.enum(['healthy', 'degraded', 'down']).describe('healthy: answered fast over TLS with a valid list of kinds and no disagreeing manifest; degraded: answered, with a problem (see reasons); down: no valid /supported answer'),
    reasons: z.array(z.string()).describe('Why the status is not healthy (empty when healthy)'),
    http_status: z.int().nullable().describe('HTTP status of GET /supported; null without an answer'),
    latency_ms: z.int().min(0).nullable().describe('Time to the complete /supported answer, in milliseconds; null without an answer'),
    tls: z.boolean().describe('Whether the facilitator is reached over https'),
    x402_versions: z.array(z.int()).describe('x402 versions among its kinds, ascending'),
    kinds: z.array(kindOut).describe('The payment kinds /supported lists (valid ones)'),
    extensions: z.array(z.string()).describe('Extensions /supported declares'),
    signers: z.record(z.string(), z.array(z.string())).describe('Signer addresses per network family, as /supported declares them'),
    manifest: z
      .object({
        found: z.boolean().describe('Whether GET /.well-known/x402 answered 200 with JSON'),
        agrees: z.boolean().nullable().describe('Whether the kinds it lists are those of /supported (null when it lists none or was not found)'),
        missing_from_supported: z.array(z.string()).describe('scheme@network pairs the manifest claims that /supported does not list'),
        missing_from_manifest: z.array(z.string()).describe('scheme@network pairs /supported lists that the manifest does not'),
      })
      .describe('The /.well-known/x402 manifest, compared with /supported'),
    checked_at: z.iso.datetime().describe('When the probe was made'),
  }),
  outputExample: {
    "facilitator_url": "http://127.0.0.1:43367",
    "status": "degraded",
    "reasons": [
      "served over plain HTTP, not TLS"
    ],
    "http_status": 200,
    "latency_ms": 4,
    "tls": false,
    "x402_versions": [
      1,
      2
    ],
    "kinds": [
      {
        "x402_version": 2,
        "scheme": "exact",
        "network": "eip155:31337"
      },
      {
        "x402_version": 2,
        "scheme": "upto",
        "network": "eip155:31337"
      },
      {
        "x402_version": 2,
        "scheme": "batch-settlement",
        "network": "eip155:31337"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "ethereum"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "sepolia"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "abstract"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "abstract-testnet"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "base-sepolia"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "base"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "avalanche-fuji"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "avalanche"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "iotex"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "sei"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "sei-testnet"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "polygon"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "polygon-amoy"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "peaq"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "story"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "educhain"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "skale-base-sepolia"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "megaeth"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "monad"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "stable"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "stable-testnet"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "celo"
      },
      {
        "x402_version": 1,
        "scheme": "exact",
        "network": "flare"
      }
    ],
    "extensions": [],
    "signers": {
      "eip155:*": [
        "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
      ]
    },
    "manifest": {
      "found": false,
      "agrees": null,
      "missing_from_supported": [],
      "missing_from_manifest": []
    },
    "checked_at": "2026-11-24T00:09:57.880Z"
  },
  run: async (input, ctx) => {
    const base = (input.facilitator_url ?? ctx.payments?.facilitatorUrl)?.replace(/\/+$/, '');
    if (!base) throw new ProductInputError('this instance settles through a built-in facilitator with no URL: give facilitator_url', 422, 'facilitator_url');
    const checkedAt = ctx.now.toISOString();
    const tls = base.startsWith('https:');
    const reasons: string[] = [];
    const down = (reason: string, httpStatus: number | null, latency: number | null) => ({
      facilitator_url: base,
      status: 'down' as const,
      reasons: [reason],
      http_status: httpStatus,
      latency_ms: latency,
      tls,
      x402_versions: [],
      kinds: [],
      extensions: [],
      signers: {},
      manifest: { found: false, agrees: null, missing_from_supported: [], missing_from_manifest: [] },
      checked_at: checkedAt,
    });
    let answer: SafeResponse;
    try {
      answer = await ctx.fetch(`${base}/supported`, { headers: { accept: 'application/json' } });
    } catch (error) {
      if (!(error instanceof SafeFetchError)) throw error;
      if (isCallerTarget(error)) throw fetchFailure(error, 'facilitator_url');
      return down(`GET /supported gave no answer (${error.code})`, null, null);
    }
    if (answer.status < 200 || answer.status > 299) return down(`GET /supported answered ${answer.status}`, answer.status, answer.latencyMs);
    const parsed = supportedShape.safeParse(json(answer));
    if (!parsed.success) return down('GET /supported is not a JSON object with a kinds array', answer.status, answer.latencyMs);
    const kinds = parsed.data.kinds.map((k) => kind.safeParse(k)).filter((k) => k.success).map((k) => k.data);
    if (kinds.length === 0) return down('GET /supported lists no valid kind', answer.status, answer.latencyMs);
    if (kinds.length < parsed.data.kinds.length) reasons.push(`${parsed.data.kinds.length - kinds.length} of the kinds /supported lists are malformed`);
    if (answer.latencyMs > SLOW_MS) reasons.push(`slow: /supported took ${answer.latencyMs} ms (over ${SLOW_MS} ms)`);
    if (!tls) reasons.push('served over plain HTTP, not TLS');
    const manifest = await compareManifest(base, kinds, ctx);
    if (manifest.agrees === false) reasons.push('its /.well-known/x402 manifest disagrees with /supported');
    return {
      facilitator_url: base,
      status: reasons.length === 0 ? ('healthy' as const) : ('degraded' as const),
      reasons,
      http_status: answer.status,
      latency_ms: answer.latencyMs,
      tls,
      x402_versions: [...new Set(kinds.map((k) => k.x402Version))].sort((a, b) => a - b),
      kinds: kinds.map((k) => ({ x402_version: k.x402Version, scheme: k.scheme, network: k.network })),
      extensions: parsed.data.extensions ?? [],
      signers: parsed.data.signers ?? {},
      manifest,
      checked_at: checkedAt,
    };
  },
});

function json(response: SafeResponse): unknown {
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

const pair = (k: { scheme: string; network: string }) => `${k.scheme}@${k.network}`;

/**
 * The manifest's kinds (a `kinds` array as /supported has it, or `accepts`/`supported` arrays of
 * `{scheme, network}`) against /supported's. A manifest that is absent or lists no kinds agrees or
 * disagrees with nothing (`agrees: null`); one that cannot be fetched is treated as absent.
 */
async function compareManifest(base: string, kinds: { scheme: string; network: string }[], ctx: ProductContext) {
  const none = { found: false, agrees: null, missing_from_supported: [] as string[], missing_from_manifest: [] as string[] };
  let answer: SafeResponse;
  try {
    answer = await ctx.fetch(`${new URL(base).origin}/.well-known/x402`, { headers: { accept: 'application/json' } });
  } catch (error) {
    if (error instanceof SafeFetchError) return none;
    throw error;
  }
  const body = answer.status === 200 ? json(answer) : undefined;
  if (!body || typeof body !== 'object') return none;
  const listed = ['kinds', 'accepts', 'supported']
    .flatMap((key) => (Array.isArray((body as Record<string, unknown>)[key]) ? ((body as Record<string, unknown>)[key] as unknown[]) : []))
    .filter((k): k is { scheme: string; network: string } => typeof (k as { scheme?: unknown })?.scheme === 'string' && typeof (k as { network?: unknown })?.network === 'string');
  if (listed.length === 0) return { ...none, found: true };
  const claimed = new Set(listed.map(pair));
  const supported = new Set(kinds.map(pair));
  const missingFromSupported = [...claimed].filter((p) => !supported.has(p)).sort();
  const missingFromManifest = [...supported].filter((p) => !claimed.has(p)).sort();
  return { found: true, agrees: missingFromSupported.length === 0 && missingFromManifest.length === 0, missing_from_supported: missingFromSupported, missing_from_manifest: missingFromManifest };
}
