// Permit2 and the x402 `upto` Permit2 proxy on a local anvil chain, at the addresses the official
// @x402/evm upto client signs for and its facilitator calls. Both are our own minimal contracts
// (contracts/Permit2.sol, contracts/X402UptoPermit2Proxy.sol) written with `anvil_setCode`.
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  http,
  maxUint256,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { PERMIT2_ADDRESS as SDK_PERMIT2_ADDRESS, x402UptoPermit2ProxyAddress } from '@x402/evm';
import { Permit2, X402UptoPermit2Proxy } from './artifacts/index.ts';
import { devChain } from './contracts.ts';

export { Permit2 as permit2Artifact, X402UptoPermit2Proxy as uptoPermit2ProxyArtifact };

/** Canonical Permit2 address (the same on every chain); the EIP-712 verifyingContract of x402 Permit2 payloads. */
export const PERMIT2_ADDRESS: Address = getAddress(SDK_PERMIT2_ADDRESS);
/** The x402 `upto` Permit2 proxy address the official SDK uses as Permit2 spender and settles through. */
export const UPTO_PERMIT2_PROXY_ADDRESS: Address = getAddress(x402UptoPermit2ProxyAddress);

const POLLING_INTERVAL_MS = 50;

/**
 * Writes the runtime code of our Permit2 and upto proxy to their canonical addresses unless it is
 * already there (idempotent; storage such as used Permit2 nonces is kept). Anvil only (`anvil_setCode`).
 */
export async function installUptoContracts(rpcUrl: string): Promise<void> {
  const publicClient = createPublicClient({ transport: http(rpcUrl) });
  const testClient = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
  const wanted = [
    [PERMIT2_ADDRESS, Permit2.deployedBytecode],
    [UPTO_PERMIT2_PROXY_ADDRESS, X402UptoPermit2Proxy.deployedBytecode],
  ] as const;
  for (const [address, bytecode] of wanted) {
    const code = await publicClient.getCode({ address });
    if (code?.toLowerCase() === bytecode.toLowerCase()) continue;
    await testClient.setCode({ address, bytecode });
  }
}

/**
 * The buyer's one-time ERC-20 approval of Permit2 on `token` (max uint256 by default), sent from
 * `ownerPrivateKey`. Skipped when the allowance already covers `amount`. Returns the transaction
 * hash, or undefined when nothing was sent.
 */
export async function approvePermit2(
  rpcUrl: string,
  chainId: number,
  token: Address,
  ownerPrivateKey: Hex,
  amount: bigint = maxUint256,
): Promise<Hex | undefined> {
  const account = privateKeyToAccount(ownerPrivateKey);
  const chain = devChain(rpcUrl, chainId);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: POLLING_INTERVAL_MS });
  const allowance = await publicClient.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [account.address, PERMIT2_ADDRESS],
  });
  if (allowance >= amount) return undefined;
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl), pollingInterval: POLLING_INTERVAL_MS });
  const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [PERMIT2_ADDRESS, amount] });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: POLLING_INTERVAL_MS });
  if (receipt.status !== 'success') throw new Error(`Permit2 approval reverted (tx ${hash})`);
  return hash;
}
