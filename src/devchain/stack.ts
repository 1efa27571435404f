import { join } from 'node:path';
import { createPublicClient, http, type Hex } from 'viem';
import type { Logger } from '../log.ts';
import { startAnvil } from './anvil.ts';
import { DEV_ROLES, ensureDevContracts, mintUsdc, usdcBalance, USDC_EIP712 } from './contracts.ts';

/** Everything a client needs to pay the dev service; written to `<dataDir>/dev.json` with exactly these keys. */
export interface DevInfo {
  baseUrl: string;
  network: `eip155:${number}`;
  chainId: number;
  rpcUrl: string;
  asset: Hex;
  payTo: Hex;
  buyerAddress: Hex;
  /** Dev only: a key of anvil's public test mnemonic, worthless on any real network. */
  buyerPrivateKey: Hex;
}

export interface DevChain {
  rpcUrl: string;
  chainId: number;
  network: `eip155:${number}`;
  usdc: Hex;
  usdcName: string;
  usdcVersion: string;
  payTo: Hex;
  buyer: { address: Hex; privateKey: Hex };
  /** Gas wallet of the in-process facilitator. */
  facilitatorKey: Hex;
  stop(): Promise<void>;
}

/** The buyer is topped up to this balance on every start, so `npm start` can always pay. */
const BUYER_FLOAT = 1_000n * 1_000_000n;

/**
 * Starts (or joins) the local chain: anvil as a child process, the test USDC (EIP-3009) and
 * Multicall3 installed, the buyer funded. With `statePath` the chain survives restarts.
 */
export async function startDevChain(options: { log: Logger; statePath?: string; rpcUrl?: string; payTo?: Hex }): Promise<DevChain> {
  const anvil = options.rpcUrl
    ? { rpcUrl: options.rpcUrl, chainId: await createPublicClient({ transport: http(options.rpcUrl) }).getChainId(), stop: async () => {} }
    : await startAnvil({ statePath: options.statePath });
  try {
    // Deploy before the facilitator (same account) sends anything, so the token address stays stable.
    const { usdc } = await ensureDevContracts(anvil.rpcUrl, DEV_ROLES.deployer.privateKey);
    const buyer = DEV_ROLES.buyer;
    const balance = await usdcBalance(anvil.rpcUrl, usdc, buyer.address);
    if (balance < BUYER_FLOAT) await mintUsdc(anvil.rpcUrl, DEV_ROLES.deployer.privateKey, usdc, buyer.address, BUYER_FLOAT - balance);
    options.log.info({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, usdc }, 'dev chain ready');
    return {
      rpcUrl: anvil.rpcUrl,
      chainId: anvil.chainId,
      network: `eip155:${anvil.chainId}`,
      usdc,
      usdcName: USDC_EIP712.name,
      usdcVersion: USDC_EIP712.version,
      payTo: options.payTo ?? DEV_ROLES.payTo.address,
      buyer: { address: buyer.address, privateKey: buyer.privateKey },
      facilitatorKey: DEV_ROLES.facilitator.privateKey,
      stop: () => anvil.stop(),
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

export function devStatePath(dataDir: string): string {
  return join(dataDir, 'anvil-state.json');
}
