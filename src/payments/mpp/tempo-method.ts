// The Tempo charge method, loaded only when Tempo is configured: mppx's Tempo support and viem's
// Tempo chains weigh about 30 MB of heap (see MppRail.create).
import { tempo } from 'mppx/server';
import { createClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo as tempoMainnet, tempoModerato } from 'viem/tempo/chains';
import { TEMPO_TESTNET, tempoChainId, type TempoRailConfig } from './tempo-config.ts';

/** The Tempo charge server method from config. */
export function createTempoCharge(config: TempoRailConfig) {
  const chainId = tempoChainId(config);
  const chain = chainId === TEMPO_TESTNET ? tempoModerato : tempoMainnet;
  const rpcUrl = config.rpcUrl;
  return tempo.charge({
    recipient: config.recipient,
    chainId,
    decimals: config.decimals ?? 6,
    ...(config.currency ? { currency: config.currency } : {}),
    ...(config.testnet ? { testnet: true } : {}),
    ...(config.feePayerKey ? { feePayer: privateKeyToAccount(config.feePayerKey) } : {}),
    ...(config.store ? { store: config.store } : {}),
    ...(rpcUrl ? { getClient: ({ chainId: id }: { chainId?: number }) => createClient({ chain: { ...chain, id: id ?? chain.id }, transport: http(rpcUrl) }) } : {}),
  });
}

export type TempoCharge = ReturnType<typeof createTempoCharge>;
