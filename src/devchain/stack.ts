import { join } from 'node:path';
import { createPublicClient, getContractAddress, http, type Hex } from 'viem';
import type { Logger } from '../log.ts';
import { startAnvil } from './anvil.ts';
import { approvePermit2, installUptoContracts } from './permit2.ts';
import { installBatchSettlementContracts } from './batch-settlement.ts';
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
/** The operator's wallet (paying upstream sellers) is topped up to this on every start. */
const OPERATOR_FLOAT = 100n * 1_000_000n;

/**
 * Starts (or joins) the local chain: anvil as a child process, the test USDC (EIP-3009) and
 * Multicall3 installed, the buyer funded. With `statePath` the chain survives restarts.
 */
export async function startDevChain(options: { log: Logger; statePath?: string; rpcUrl?: string; payTo?: Hex }): Promise<DevChain> {
  if (options.rpcUrl) return joinDevChain(options.rpcUrl, options);
  const anvil = await startAnvil({ statePath: options.statePath });
  try {
    // Deploy before the facilitator (same account) sends anything, so the token address stays stable.
    const { usdc } = await ensureDevContracts(anvil.rpcUrl, DEV_ROLES.deployer.privateKey);
    // Permit2 and the x402 upto proxy at their canonical addresses, for `upto` payments.
    await installUptoContracts(anvil.rpcUrl);
    await installBatchSettlementContracts(anvil.rpcUrl);
    const buyer = DEV_ROLES.buyer;
    const balance = await usdcBalance(anvil.rpcUrl, usdc, buyer.address);
    if (balance < BUYER_FLOAT) await mintUsdc(anvil.rpcUrl, DEV_ROLES.deployer.privateKey, usdc, buyer.address, BUYER_FLOAT - balance);
    const operator = DEV_ROLES.operatorPayer.address;
    const operatorBalance = await usdcBalance(anvil.rpcUrl, usdc, operator);
    if (operatorBalance < OPERATOR_FLOAT) await mintUsdc(anvil.rpcUrl, DEV_ROLES.deployer.privateKey, usdc, operator, OPERATOR_FLOAT - operatorBalance);
    // The one-time approval an `upto` payer gives Permit2, done for the dev buyer so it can pay at once.
    await approvePermit2(anvil.rpcUrl, anvil.chainId, usdc, buyer.privateKey);
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

/**
 * Joins a dev chain another process started (several instances on one chain): reads only. Sending
 * from the deployer here would race the other process's facilitator for the same account's nonces.
 */
async function joinDevChain(rpcUrl: string, options: { log: Logger; payTo?: Hex }): Promise<DevChain> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const chainId = await client.getChainId();
  const usdc = getContractAddress({ from: DEV_ROLES.deployer.address, nonce: 0n });
  const code = await client.getCode({ address: usdc });
  if (!code || code === '0x') throw new Error(`no test USDC at ${usdc} on ${rpcUrl}: start that chain with npm start first`);
  options.log.info({ rpcUrl, chainId, usdc }, 'joined dev chain');
  return {
    rpcUrl,
    chainId,
    network: `eip155:${chainId}`,
    usdc,
    usdcName: USDC_EIP712.name,
    usdcVersion: USDC_EIP712.version,
    payTo: options.payTo ?? DEV_ROLES.payTo.address,
    buyer: { address: DEV_ROLES.buyer.address, privateKey: DEV_ROLES.buyer.privateKey },
    facilitatorKey: DEV_ROLES.facilitator.privateKey,
    stop: async () => {},
  };
}

export function devStatePath(dataDir: string): string {
  return join(dataDir, 'anvil-state.json');
}
