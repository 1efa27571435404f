// The x402 `batch-settlement` contracts on a local anvil chain, at the addresses the official @x402/evm
// batch-settlement client signs for and its facilitator calls: the channel contract and its two deposit
// collectors (EIP-3009 and Permit2). All three are our own minimal contracts
// (contracts/X402BatchSettlement.sol, contracts/X402BatchDepositCollectors.sol) written with `anvil_setCode`.
// The Permit2 collector goes through our Permit2 (src/devchain/permit2.ts), installed by installUptoContracts.
import { createPublicClient, createTestClient, getAddress, http, type Address } from 'viem';
import { BATCH_SETTLEMENT_ADDRESS as SDK_BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS as SDK_ERC3009_COLLECTOR } from '@x402/evm';
import { X402BatchSettlement, X402ERC3009DepositCollector, X402Permit2DepositCollector } from './artifacts/index.ts';

export {
  X402BatchSettlement as batchSettlementArtifact,
  X402ERC3009DepositCollector as erc3009DepositCollectorArtifact,
  X402Permit2DepositCollector as permit2DepositCollectorArtifact,
};

/** The x402BatchSettlement channel contract: the EIP-712 verifyingContract of channel ids, vouchers, claims and refunds. */
export const BATCH_SETTLEMENT_ADDRESS: Address = getAddress(SDK_BATCH_SETTLEMENT_ADDRESS);
/** Receives the payer's ERC-3009 `receiveWithAuthorization` and forwards the deposit to the channel contract. */
export const ERC3009_DEPOSIT_COLLECTOR_ADDRESS: Address = getAddress(SDK_ERC3009_COLLECTOR);
/** The Permit2 spender of batch-settlement deposits (the SDK has it as PERMIT2_DEPOSIT_COLLECTOR_ADDRESS, not exported). */
export const PERMIT2_DEPOSIT_COLLECTOR_ADDRESS: Address = getAddress('0x4020425FAf3B746C082C2f942b4E5159887B0005');

/** The channel contract's ABI (ours: the SDK's subset plus views, events and errors). */
export const batchSettlementAbi = X402BatchSettlement.abi;

/**
 * Writes the runtime code of the channel contract and both deposit collectors to their canonical addresses
 * unless it is already there (idempotent; channel state is kept). Anvil only (`anvil_setCode`). Deposits
 * through the Permit2 collector also need Permit2 (installUptoContracts) and the payer's Permit2 approval.
 */
export async function installBatchSettlementContracts(rpcUrl: string): Promise<void> {
  const publicClient = createPublicClient({ transport: http(rpcUrl) });
  const testClient = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
  const wanted = [
    [BATCH_SETTLEMENT_ADDRESS, X402BatchSettlement.deployedBytecode],
    [ERC3009_DEPOSIT_COLLECTOR_ADDRESS, X402ERC3009DepositCollector.deployedBytecode],
    [PERMIT2_DEPOSIT_COLLECTOR_ADDRESS, X402Permit2DepositCollector.deployedBytecode],
  ] as const;
  for (const [address, bytecode] of wanted) {
    const code = await publicClient.getCode({ address });
    if (code?.toLowerCase() === bytecode.toLowerCase()) continue;
    await testClient.setCode({ address, bytecode });
  }
}
